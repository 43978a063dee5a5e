import sys

from sitbench.cli import main

sys.exit(main())
