"""Item delegates that paint what plain text cannot (tokens as chips)."""
