"""An implicit solver whose forward step runs with the active tape suspended."""
