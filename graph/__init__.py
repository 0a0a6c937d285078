"""Graph access: the only package that speaks Cypher.

`driver.Graph` runs statements; `visibility` holds the visibility rule (contract §1) as Cypher
fragments composed into every read; the other modules hold the Cypher of one concern each,
as named constants, and map records to plain dataclasses (`records`).
"""
