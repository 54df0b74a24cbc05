import sys

from symattn.products.cli import main

sys.exit(main())
