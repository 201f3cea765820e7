"""One module per revision; each is frozen once released."""
