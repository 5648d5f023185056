from warp_ct.cli import console_main

console_main()
