"""The retrieval variants the eval can measure: a lexical rule and the index it needs.

Each variant is the service's own search with other settings (retrieval/lexical_rule.py) over
FULLTEXT indexes built with another analyzer or on other fields (graph/lexical_index.py). The
eval applies a variant's indexes (`schema apply`'s code), then searches through the served
GraphQL schema with its rule, so a variant's figures are what the service would answer if it
were configured that way.

`default` is what the service does out of the box. `seed` is the seed's rule as first
written (every plain word sent, any one of them a hit, the analyzer it shipped with). The
others each change one thing from `default`, to show what each choice is worth.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graph.lexical_index import ENTITY_ANALYZER, LexicalIndexSpec
from retrieval.lexical_rule import LexicalRule

SEED_ANALYZER = "standard-no-stop-words"


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    summary: str
    rule: LexicalRule = field(default_factory=LexicalRule)
    analyzer: str = ENTITY_ANALYZER

    @property
    def index(self) -> LexicalIndexSpec:
        return LexicalIndexSpec(self.rule.fields, self.analyzer)


_DESCRIPTION = ("name", "description")

VARIANTS: tuple[Variant, ...] = (
    Variant("default", "the service's defaults"),
    Variant(
        "seed",
        "the seed as first written: every plain word, any one a hit, standard-no-stop-words",
        LexicalRule(min_coverage=0.0, stop_words=False, possessives=False),
        SEED_ANALYZER,
    ),
    Variant(
        "name+description",
        "opt-in RETRIEVAL_LEXICAL_FIELDS=name,description (beyond the seed)",
        LexicalRule(fields=_DESCRIPTION),
    ),
    Variant("no-coverage", "default without the coverage rule", LexicalRule(min_coverage=0.0)),
    Variant(
        "coverage-1/3", "a name must hold a third of the words", LexicalRule(min_coverage=1 / 3)
    ),
    Variant(
        "coverage-2/3", "a name must hold two thirds of the words", LexicalRule(min_coverage=2 / 3)
    ),
    Variant("coverage-all", "a name must hold every content word", LexicalRule(min_coverage=1.0)),
    Variant(
        "keep-stop-words",
        "default, but function words are sent and counted",
        LexicalRule(stop_words=False),
    ),
    Variant(
        "analyzer-seed", "default rule, standard-no-stop-words analyzer", analyzer=SEED_ANALYZER
    ),
    Variant("analyzer-standard", "default rule, standard analyzer", analyzer="standard"),
    Variant("analyzer-simple", "default rule, simple analyzer", analyzer="simple"),
    Variant(
        "analyzer-classic",
        "default rule, classic analyzer (the default before the name rules)",
        analyzer="classic",
    ),
    Variant(
        "name+description-no-coverage",
        "the opt-in without the coverage rule",
        LexicalRule(fields=_DESCRIPTION, min_coverage=0.0),
    ),
)

BY_NAME = {variant.name: variant for variant in VARIANTS}

# What `evidencegraph eval` runs unless told otherwise.
STANDARD = ("default", "seed", "name+description")


def chosen(names: str) -> list[Variant]:
    """Variants by comma-separated name; "all" for every one, "standard" for STANDARD."""
    picked: list[str] = []
    for name in (part.strip() for part in names.split(",") if part.strip()):
        if name == "all":
            picked += [v.name for v in VARIANTS]
        elif name == "standard":
            picked += list(STANDARD)
        elif name in BY_NAME:
            picked.append(name)
        else:
            raise ValueError(f"unknown variant {name!r}; known: {', '.join(BY_NAME)}")
    return [BY_NAME[name] for name in dict.fromkeys(picked)]
