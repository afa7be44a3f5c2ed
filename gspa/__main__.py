import sys
from gspa.cli import main
sys.exit(main())
