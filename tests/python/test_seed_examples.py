"""The seed examples (MXNet's own executor docstrings) run verbatim as a
doctest of docs/python.md, so the documentation cannot drift from the code."""
import doctest
import os

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")


def test_docs_python_md_examples(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the checkpoint example writes files
    result = doctest.testfile(os.path.abspath(DOC), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 30
    assert result.failed == 0
