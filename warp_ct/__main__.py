from warp_ct.cli import main

raise SystemExit(main())
