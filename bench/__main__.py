"""`python -m bench`: the load benchmark and its report (bench/load.py; `make bench`)."""

from bench.load import main

main()
