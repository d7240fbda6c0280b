"""The glossary agrees with the source page: its terms, and the one meaning of *coverage*.

The page is Chinese; the glossary puts its terms beside the course's English
ones. :data:`PAGE_TERMS` are the page's terms of art that a reader of the page
meets (taken from the page by hand); each must be in the glossary. Where the
page itself is at hand (``../shared/seed`` beside a checkout of the course,
as for its developers and CI), every term the glossary says comes from the
page must occur in it.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
PAGE = ROOT.parent / "shared" / "seed"

#: The source page's terms of art, each of which the glossary must give.
PAGE_TERMS = (
    "最终答案等价", "表达空间", "参考答案", "未解析状态", "格式失败", "精确有理数比较", "容差",
    "单位换算", "答案验证器", "判据", "组合估计", "样本池组合概率", "单次成功率", "覆盖概率",
    "采样预算", "按题目聚合", "执行器", "程序组装", "调用链", "超时监督", "监督子进程", "结果字段",
    "终态", "完整分母", "执行覆盖", "已执行成功率", "安全边界",
)


def _rows():
    """``(English, 中文, line, lesson)`` of every glossary row."""
    return [tuple(cell.strip() for cell in line.split("|")[1:-1]) for line in GLOSSARY.splitlines()
            if line.startswith("| ") and not line.startswith("| English")]


def _chinese_terms(cell):
    cell = re.sub(r"\(.*?\)", " ", cell)  # notes in brackets are not terms
    return [part for part in re.split(r"[\s/（）()、`]+", cell) if re.search(r"[\u4e00-\u9fff]", part)]


@pytest.mark.parametrize("term", PAGE_TERMS)
def test_every_term_of_the_page_is_in_the_glossary(term):
    assert any(term in _chinese_terms(row[1]) for row in _rows()), term


def test_pass_at_k_is_the_pages_coverage_probability_and_coverage_is_its_execution_coverage():
    rows = {row[0]: row for row in _rows()}
    assert "覆盖概率" in rows["pass@k"][2] and "覆盖率" not in rows["pass@k"][2]
    assert "执行覆盖" in _chinese_terms(rows["coverage"][1])


def test_every_term_said_to_come_from_the_page_occurs_in_it():
    pages = sorted(PAGE.glob("*.txt")) if PAGE.is_dir() else []
    if not pages:
        pytest.skip(f"the source page is not beside this checkout ({PAGE})")
    text = "".join(path.read_text(encoding="utf-8") for path in pages)
    missing = [(row[0], term) for row in _rows() if "not on the source page" not in row[1]
               # 代入估计 is the course's own word for what the page calls 插值方式 (the row says why).
               for term in _chinese_terms(row[1]) if term not in text and term != "代入估计"]
    assert missing == []
