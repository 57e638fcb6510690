import sys
from pathlib import Path

# Lets test modules import the shared helpers in tests/oracle.py.
sys.path.insert(0, str(Path(__file__).resolve().parent))
