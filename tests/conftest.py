import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Never let a test touch the developer's own Warp cache.
os.environ.setdefault("WARP_CACHE_PATH", str(Path(os.environ.get("TMPDIR", "/tmp")) / "warp-ct-test-cache"))
