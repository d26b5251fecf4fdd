import sys

from generator.commands.cli import main

sys.exit(main())
