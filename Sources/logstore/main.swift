import LogStoreCLI

await LogStoreCommand.main()
