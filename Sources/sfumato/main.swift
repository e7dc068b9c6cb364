print("sfumato")
