"""Pure retrieval logic: plain functions and data, no I/O, tested without a database.

Every package may import from here; nothing here imports from the rest of the project
except `contract/`.
"""
