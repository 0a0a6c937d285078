"""Pure retrieval logic: query reduction, rank fusion and walk bookkeeping. No I/O here."""
