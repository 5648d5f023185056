"""A user's reaching task, solved with the ikit library."""
