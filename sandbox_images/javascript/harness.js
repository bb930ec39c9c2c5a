// harness: written by the sandbox engine
