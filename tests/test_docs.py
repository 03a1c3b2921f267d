"""Generated documentation is current: the element tables and the JSON Schema come from the dataclasses."""

from __future__ import annotations

import json
from pathlib import Path

from fmu_mbs.model.schema import json_schema, markdown_tables

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_model_format_tables_are_current():
    text = (DOCS / "model-format.md").read_text()
    generated = text.split("<!-- BEGIN GENERATED -->\n", 1)[1].split("<!-- END GENERATED -->", 1)[0]
    assert generated.strip() == markdown_tables().strip(), \
        "regenerate the tables: python -m fmu_mbs.model.schema --markdown"


def test_json_schema_file_is_current():
    assert json.loads((DOCS / "model-schema.json").read_text()) == json_schema(), \
        "regenerate: python -m fmu_mbs.model.schema > docs/model-schema.json"


def test_schema_lists_every_field_of_the_catalogue_models():
    """Every key used by a catalogue model is a property the schema knows (additionalProperties false)."""
    schema = json_schema()
    models = Path(__file__).resolve().parents[1] / "models"
    for path in models.glob("*.json"):
        data = json.loads(path.read_text())
        assert set(data) <= set(schema["properties"])
        for section in ("markers", "joints", "drivers"):
            props = schema["properties"][section]["items"]["properties"]
            for item in data[section]:
                assert set(item) <= set(props), (path.name, section, set(item) - set(props))
        for section in ("bodies", "forces"):
            variants = {v["properties"]["type"]["const"]: v for v in schema["properties"][section]["items"]["oneOf"]}
            for item in data[section]:
                assert set(item) <= set(variants[item["type"]]["properties"]), (path.name, item["name"])
