BenchServer.main()
