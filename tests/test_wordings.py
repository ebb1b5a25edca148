"""An errors entry's message as other releases printed it (docs/_ext/wordings.py)."""

from __future__ import annotations

from packaging.version import Version

from wordings import other_wordings

NEW = "RuntimeError: nccl2 requires at least one CUDA device\na group was left initialized: False\n"
OLD = (
    "ValueError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!\n"
    "a group was left initialized: False\n"
)


def test_releases_that_worded_the_message_otherwise_are_grouped_by_their_words():
    outputs = {Version("2.4.1"): [OLD], Version("2.14.1"): [OLD], Version("2.15.0"): [NEW]}
    assert other_wordings([NEW], outputs) == {
        ("ValueError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!",): [
            Version("2.4.1"),
            Version("2.14.1"),
        ]
    }


def test_the_same_message_after_another_attempt_of_the_code_is_another_wording():
    # Newer releases raise the old message for "nccl-legacy"; older ones raised it for "nccl".
    own = ["nccl: RuntimeError: nccl2 requires a GPU\nnccl-legacy: ValueError: no GPUs found!\n"]
    old = ["nccl: ValueError: no GPUs found!\nnccl-legacy: AssertionError: Unknown backend\n"]
    assert list(other_wordings(own, {Version("2.14.1"): old})) == [
        ("nccl: ValueError: no GPUs found!", "nccl-legacy: AssertionError: Unknown backend")
    ]


def test_a_message_that_differs_only_in_its_values_is_the_same_wording():
    own = ["RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x50 and 100x10)\n"]
    other = ["RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x3 and 4x5)\n"]
    assert other_wordings(own, {Version("2.4.1"): other}) == {}


def test_the_page_s_own_lines_are_no_wording_and_a_continued_message_is_one():
    message = 'RuntimeError: Error(s) in loading state_dict for Linear:\n\tMissing key(s): "bias".'
    other = [f"printed by the page\n{message}\nnext line of the page\n"]
    assert other_wordings(["nothing went wrong\n"], {Version("2.6.0"): other}) == {
        (message,): [Version("2.6.0")]
    }


def test_a_warning_written_to_stderr_is_not_the_page_s_wording():
    stderr = (
        "<venv>/lib/python3.11/site-packages/onnxscript/converter.py:823: FutureWarning: "
        "'param_schemas' is deprecated\n  param_schemas = callee.param_schemas()\n"
    )
    own = ["RuntimeError: boom\n"]
    assert other_wordings(own, {Version("2.4.1"): [stderr + "RuntimeError: boom\n"]}) == {}
    printed = "UserWarning: Graph break due to unsupported builtin time.time\n"  # the page's print
    assert list(other_wordings(own, {Version("2.4.1"): [printed]})) == [(printed.strip(),)]
