"""`python -m ftlab`: the same command line as the `ftlab` console script (ftlab.cli)."""

from ftlab.cli import main

main()
