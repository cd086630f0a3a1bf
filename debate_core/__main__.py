import sys

from debate_core.cli.main import main

sys.exit(main())
