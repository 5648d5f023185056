"""A neighbor search whose graph runner launches the fill kernel or the selective one."""
