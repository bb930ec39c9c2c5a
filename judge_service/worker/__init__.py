"""Workers: the code that owns sandbox pools and judges chunks of a batch."""
