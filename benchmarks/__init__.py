"""Tools that measure rope_lib and write book/data/*.json (`make bench`); they sit outside the package."""
