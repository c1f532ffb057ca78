import sys

from .core.runtime import setup_cpu

setup_cpu()  # before anything imports PyTorch

from .cli import main  # noqa: E402

sys.exit(main())
