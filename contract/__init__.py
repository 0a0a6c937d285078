"""The contract's vocabulary (contract §1, §3, §5, §7): error codes, scope and argument ranges.

Every layer may import from here; nothing here imports from the rest of the project.
"""
