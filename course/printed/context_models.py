"""What notebooks 06-11 (the biLM, polysemy, layers, transfer, ULMFiT, Transformers) print, in each edition."""

PRINTED: dict[str, dict[str, str]] = {
}
