import warp as wp

wp.config.enable_backward = False
