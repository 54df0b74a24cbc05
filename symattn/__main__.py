import sys

from symattn.cli import main

sys.exit(main())
