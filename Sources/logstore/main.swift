print("logstore")
