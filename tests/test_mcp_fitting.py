"""The size cut (mcpserver/fitting.py; contract §12, issue 39 point 1): the budget is the text's,
what a model reads; the structured content holds the same items and is not counted. Pure: the
answers are built here, as mcpserver/answering.py builds them, without a graph."""

from __future__ import annotations

from typing import Any

from mcpserver.answering import ToolAnswer, part_end
from mcpserver.fitting import fit

IDS = [f"{n:08d}-0000-4000-8000-000000000000" for n in range(100)]


def entity_labels_answer(count: int) -> ToolAnswer:
    """`count` labels, each with a long field the text does not show: the JSON is far longer
    than the text."""

    def build(n: int) -> dict[str, Any]:
        labels = [
            {
                "label": f"Label{i}",
                "fulltextIndex": "ONLINE",
                "vectorIndex": "ONLINE",
                "_": "x" * 500,
            }
            for i in range(n)
        ]
        return {"labels": labels}

    return ToolAnswer(build, items=count, continuation=lambda at: f"read on from {at}")


def test_an_answer_whose_text_fits_is_sent_whole_however_long_its_structured_content() -> None:
    content, text = fit("entity_labels", entity_labels_answer(60), 5_000)
    assert len(text) <= 5_000 < len(str(content))
    assert len(content["labels"]) == 60 and "cut" not in content


def test_an_answer_whose_text_does_not_fit_is_cut_to_the_items_that_fit_with_a_note() -> None:
    content, text = fit("entity_labels", entity_labels_answer(400), 5_000)
    assert len(text) <= 5_000
    kept = len(content["labels"])
    assert 0 < kept < 400
    assert content["cut"].endswith(
        f"left out {400 - kept} of 400 labels. To read the rest, read on from {kept}."
    )
    assert text.endswith(content["cut"])


def test_a_passage_part_ends_at_a_words_end_and_the_next_starts_there() -> None:
    text = "Marley was dead: to begin with. There is no doubt whatever about that. " * 40
    begin, parts = 0, []
    while begin < len(text):
        end = part_end(text, begin, 100)
        assert 0 < end - begin <= 100
        assert end == len(text) or not (text[end - 1].isalnum() and text[end].isalnum())
        parts.append(text[begin:end])
        begin = end
    assert "".join(parts) == text
