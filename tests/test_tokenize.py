from course.text import tokenize


def test_english_tokens_lowercase_and_drop_punctuation():
    assert tokenize.english_tokens("The cat's 2 toys, (re)tied!") == ["the", "cat's", "2", "toys", "re", "tied"]


def test_english_sentences_split_before_capitals_only():
    text = "Dr. Smith arrived at 10 a.m. today. It rained! Did it? Yes."
    sentences = tokenize.english_sentences(text)
    assert sentences[-3:] == [["it", "rained"], ["did", "it"], ["yes"]]
    assert ["today"] != sentences[0][-1:]  # the abbreviation "a.m. today" stays in one sentence


def test_jieba_keeps_baofu_whole_in_every_sense():
    sentences = ("他背起包袱向远方走去", "我们要放下思想包袱，轻装上阵", "不要背包袱", "他甩包袱给别人",
                 "相声演员抖了一个包袱")
    for sentence in sentences:
        assert "包袱" in tokenize.segment_chinese(sentence), sentence


def test_chinese_sentences_split_and_drop_punctuation():
    sentences = tokenize.chinese_sentences("今天天气很好。我们去公园散步吧！")
    assert len(sentences) == 2
    assert all(not tokenize.is_punctuation(token) for sentence in sentences for token in sentence)


def test_guess_language():
    assert tokenize.guess_language("这是一个中文句子，里面有一些 English words。") == "zh"
    assert tokenize.guess_language("An English sentence with one 词.") == "en"
    assert tokenize.guess_language("12345 !!!") == "en"
