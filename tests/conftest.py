import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from anywhere: the project's `metrics`, never PyPI's
    sys.path.insert(0, str(ROOT))
