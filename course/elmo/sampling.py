"""Text drawn from the forward language model, one word at a time.

Starting from ``<bos>`` (and an optional prefix), the forward LM gives p(w | words so far); a
word is drawn from p^(1 / temperature) (renormalised), fed back in, and so on until ``<eos>`` or
``max_length`` words. Low temperatures give the likeliest words, high ones more surprising text.
"""

from __future__ import annotations

import torch

from ..core.errors import SettingError


@torch.no_grad()
def sample(model, num_sentences: int = 5, max_length: int = 30, temperature: float = 1.0, seed: int = 1,
           prefix=()) -> list[list[str]]:
    """``num_sentences`` sentences from ``model``'s forward LM (an :class:`~course.elmo.model.Elmo`).

    ``prefix``: words every sentence starts with. Never draws ``<pad>``, ``<bos>`` or ``<unk>``.
    The same seed gives the same sentences.
    """
    if temperature <= 0:
        raise SettingError(f"temperature must be positive, got {temperature}")
    bilm, words, characters = model.bilm, model.words, model.characters
    device = next(bilm.parameters()).device
    generator = torch.Generator(device=device).manual_seed(seed)
    banned = [i for i in (words.pad_id, words.bos_id, words.unk_id) if i is not None]
    was_training = bilm.training
    bilm.eval()
    try:
        def chars(batch_words):
            return torch.from_numpy(characters.encode(batch_words)).to(device).unsqueeze(1)  # (B, 1, C)

        state = None
        for word in ["<bos>", *prefix]:
            log_p, state = bilm.next_word_log_probabilities(chars([word] * num_sentences), state)
        sentences = [list(prefix) for _ in range(num_sentences)]
        done = torch.zeros(num_sentences, dtype=torch.bool)
        for _ in range(max_length - len(prefix)):
            log_p = log_p / temperature
            log_p[:, banned] = float("-inf")
            drawn = torch.multinomial(torch.softmax(log_p, dim=-1), 1, generator=generator).squeeze(1).cpu()
            done |= drawn == words.eos_id
            if done.all():
                break
            next_words = [words.words[i] for i in drawn.tolist()]
            for sentence, word, finished in zip(sentences, next_words, done.tolist(), strict=True):
                if not finished:
                    sentence.append(word)
            log_p, state = bilm.next_word_log_probabilities(chars(next_words), state)
        return sentences
    finally:
        bilm.train(was_training)
