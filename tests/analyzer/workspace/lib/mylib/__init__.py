from mylib.ops import scale
