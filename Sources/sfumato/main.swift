import SfumatoCLI

SfumatoCommand.main()
