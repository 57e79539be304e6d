import Foundation
import PackagePlugin

/// Embeds the pages' scripts and styles, kept as `.js` and `.css` files that an editor and a
/// linter can read, into their modules as string constants (EmbedText writes a Swift file): the
/// HTML export's viewer into LogStore, the live console's page into LogStoreConsole.
///
/// Build time rather than resources: the library must work as a bare binary, with no bundle beside it.
@main
struct EmbedViewerAssets: BuildToolPlugin {
    /// Per target, the files and the constants they become, paths relative to the target's directory.
    static let assets: [String: [(constant: String, path: String)]] = [
        "LogStore": [
            ("HTMLPageScript.source", "Export/HTML/HTMLPageScript.js"),
            ("HTMLPageStyle.css", "Export/HTML/HTMLPageStyle.css"),
        ],
        "LogStoreConsole": [
            ("ConsolePageAssets.script", "Page/ConsolePage.js"),
            ("ConsolePageAssets.style", "Page/ConsolePage.css"),
        ],
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let assets = Self.assets[target.name] ?? []
        let inputs = assets.map { target.directoryURL.appending(path: $0.path) }
        let output = context.pluginWorkDirectoryURL.appending(path: "\(target.name)PageAssets.swift")
        let pairs = zip(assets, inputs).map { "\($0.constant)=\($1.path(percentEncoded: false))" }
        return [
            .buildCommand(
                displayName: "Embedding the page scripts and styles in \(target.name)",
                executable: try context.tool(named: "EmbedText").url,
                arguments: [output.path(percentEncoded: false)] + pairs,
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
