/* The course's pages as one site: a sidebar of the notebooks and their sections, previous and next, the switch to
   the same notebook in the other edition, a search over both editions, and the index's list of both editions.

   It reads window.COURSE_SITE (pages.js, written by the build) and, the first time the reader searches,
   window.COURSE_SEARCH (search.js), loaded by a script tag: from the disk (file://) a page may not fetch() a file,
   and a script tag works there as from a web server. Nothing is asked of the network. */
(function () {
  "use strict";

  var WORDS = {
    en: {course: "Word Vectors, Hands-On", label: "English", contents: "Notebooks", search: "Search both editions",
         previous: "Previous", next: "Next", none: "Nothing found.", loading: "Loading the index…",
         failed: "The search index is missing: build the course again.", notBuilt: "not built yet",
         sections: "Sections"},
    zh: {course: "动手学词向量", label: "中文", contents: "笔记本", search: "搜索两个版本",
         previous: "上一篇", next: "下一篇", none: "没有找到。", loading: "正在载入索引……",
         failed: "缺少搜索索引：请重新构建课程。", notBuilt: "尚未构建", sections: "小节"}
  };

  function meta(name) {
    var element = document.querySelector("meta[name='course-" + name + "']");
    return element ? element.getAttribute("content") : "";
  }

  var edition = meta("edition") === "zh" ? "zh" : "en";
  var other = edition === "zh" ? "en" : "zh";
  var stem = meta("notebook");
  var root = meta("root") || "./";
  var site = window.COURSE_SITE || {editions: {}};
  var words = WORDS[edition];

  function pagesOf(which) {
    var listed = site.editions[which];
    return listed ? listed.pages : [];
  }

  function indexOf(which) {
    var listed = site.editions[which];
    return listed && listed.index ? root + listed.index : null;
  }

  function element(tag, attributes, children) {
    var made = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      if (attributes[name] !== null && attributes[name] !== undefined) { made.setAttribute(name, attributes[name]); }
    });
    (children || []).forEach(function (child) {
      made.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return made;
  }

  var pages = pagesOf(edition);
  var here = -1;
  pages.forEach(function (page, i) { if (page.stem === stem) { here = i; } });

  // ------------------------------------------------------------ the edition switch

  function switchTarget() {
    var match = null;
    if (stem) {
      pagesOf(other).forEach(function (page) { if (page.stem === stem) { match = root + page.url; } });
    }
    return match || (stem ? null : indexOf(other));
  }

  function editionSwitch() {
    var target = switchTarget();
    var label = WORDS[other].label;
    var bar = element("div", {"class": "course-switch"}, [element("span", {"class": "course-current"}, [words.label])]);
    bar.appendChild(target
      ? element("a", {id: "course-edition-switch", href: target, hreflang: other === "zh" ? "zh-Hans" : "en",
                      lang: other === "zh" ? "zh-Hans" : "en"}, [label])
      : element("span", {id: "course-edition-switch", "class": "course-missing", title: WORDS[other].notBuilt}, [label]));
    return bar;
  }

  // ------------------------------------------------------------ the sidebar

  function sidebar() {
    var home = indexOf(edition);
    var nav = element("nav", {id: "course-sidebar", "aria-label": words.contents}, [
      home ? element("a", {"class": "course-home", href: home}, [words.course])
           : element("span", {"class": "course-home"}, [words.course]),
      editionSwitch(),
      element("input", {id: "course-search", type: "search", placeholder: words.search, "aria-label": words.search,
                        autocomplete: "off"}),
      element("div", {id: "course-results", role: "list", hidden: ""})
    ]);
    var list = element("ol", {"class": "course-toc"});
    pages.forEach(function (page, i) {
      var item = element("li", i === here ? {"class": "course-here"} : {},
                         [element("a", {href: root + page.url, "aria-current": i === here ? "page" : null}, [page.title])]);
      if (i === here && page.sections.length) {
        var sections = element("ol", {"class": "course-sections", "aria-label": words.sections});
        page.sections.forEach(function (section) {
          sections.appendChild(element("li", {}, [element("a", {href: "#" + section[0]}, [section[1]])]));
        });
        item.appendChild(sections);
      }
      list.appendChild(item);
    });
    nav.appendChild(list);
    return nav;
  }

  // ------------------------------------------------------------ previous and next

  function pager() {
    var bar = element("nav", {"class": "course-pager", "aria-label": words.previous + " / " + words.next});
    if (here > 0) {
      bar.appendChild(element("a", {rel: "prev", href: root + pages[here - 1].url},
                              ["← " + words.previous + ": " + pages[here - 1].title]));
    } else {
      bar.appendChild(element("span", {}));
    }
    if (here >= 0 && here < pages.length - 1) {
      bar.appendChild(element("a", {rel: "next", href: root + pages[here + 1].url},
                              [words.next + ": " + pages[here + 1].title + " →"]));
    }
    return bar;
  }

  // ------------------------------------------------------------ search

  var loading = null;

  function loadIndex(done) {
    if (window.COURSE_SEARCH) { done(true); return; }
    if (loading) { loading.push(done); return; }
    loading = [done];
    var script = element("script", {src: root + "static/site/search.js"});
    var finish = function (ok) {
      var waiting = loading;
      loading = null;
      waiting.forEach(function (callback) { callback(ok); });
    };
    script.onload = function () { finish(Boolean(window.COURSE_SEARCH)); };
    script.onerror = function () { finish(false); };
    document.head.appendChild(script);
  }

  var lowered = null;

  function search(query) {
    var terms = query.toLowerCase().split(/\s+/).filter(Boolean);
    var records = window.COURSE_SEARCH || [];
    if (!terms.length) { return []; }
    if (!lowered) {
      lowered = records.map(function (record) { return [record[3].toLowerCase(), record[4].toLowerCase()]; });
    }
    var found = [];
    records.forEach(function (record, i) {
      var title = lowered[i][0], text = lowered[i][1], score = record[0] === edition ? 0.5 : 0;
      var first = -1, length = 0;
      for (var t = 0; t < terms.length; t++) {
        var at = text.indexOf(terms[t]);
        if (at < 0 && title.indexOf(terms[t]) < 0) { return; }
        if (first < 0 && at >= 0) { first = at; length = terms[t].length; }
        score += text.split(terms[t]).length - 1 + (title.indexOf(terms[t]) >= 0 ? 10 : 0);
      }
      found.push({score: score, record: record, at: first, length: length});
    });
    found.sort(function (a, b) { return b.score - a.score; });
    return found.slice(0, 30);
  }

  function snippet(text, at, length) {
    if (at < 0) { return [text.slice(0, 80)]; }
    var start = Math.max(0, at - 40), end = Math.min(text.length, at + length + 60);
    return [(start > 0 ? "…" : "") + text.slice(start, at), element("mark", {}, [text.slice(at, at + length)]),
            text.slice(at + length, end) + (end < text.length ? "…" : "")];
  }

  function showResults(box, query) {
    box.textContent = "";
    if (!query.trim()) { box.hidden = true; return; }
    box.hidden = false;
    var found = search(query);
    if (!found.length) { box.appendChild(element("p", {"class": "course-none"}, [words.none])); return; }
    found.forEach(function (hit) {
      var record = hit.record, page = pagesOf(record[0])[record[1]];
      if (!page) { return; }
      box.appendChild(element("a", {"class": "course-result", role: "listitem", href: root + page.url + "#" + record[2],
                                    "data-edition": record[0], "data-notebook": page.stem}, [
        element("span", {"class": "course-result-edition"}, [WORDS[record[0]].label]),
        element("span", {"class": "course-result-title"}, [page.title + (record[3] !== page.title ? " › " + record[3] : "")]),
        element("span", {"class": "course-result-text"}, snippet(record[4], hit.at, hit.length))
      ]));
    });
  }

  function wireSearch(input, box) {
    var pending = null;
    input.addEventListener("input", function () {
      var query = input.value;
      if (!window.COURSE_SEARCH) {
        box.hidden = false;
        box.textContent = words.loading;
      }
      loadIndex(function (ok) {
        if (!ok) { box.hidden = false; box.textContent = words.failed; return; }
        clearTimeout(pending);
        pending = setTimeout(function () { showResults(box, input.value); }, query === input.value ? 0 : 60);
      });
    });
    input.addEventListener("keydown", function (event) {
      var first = box.querySelector("a.course-result");
      if (event.key === "Enter" && first) { window.location.href = first.href; }
      if (event.key === "Escape") { input.value = ""; showResults(box, ""); }
    });
  }

  // ------------------------------------------------------------ the index's list of both editions

  function editionLists(holder) {
    ["en", "zh"].forEach(function (which) {
      var listed = pagesOf(which);
      var column = element("div", {"class": "course-edition", lang: which === "zh" ? "zh-Hans" : "en",
                                   "data-edition": which}, [
        element("h3", {}, [indexOf(which) ? element("a", {href: indexOf(which)}, [WORDS[which].course + " · " +
                                                                                   WORDS[which].label])
                                          : WORDS[which].course + " · " + WORDS[which].label])
      ]);
      if (!listed.length) {
        column.appendChild(element("p", {"class": "course-missing"}, [WORDS[which].notBuilt]));
      } else {
        var list = element("ol", {});
        listed.forEach(function (page) {
          list.appendChild(element("li", {}, [element("a", {href: root + page.url}, [page.title])]));
        });
        column.appendChild(list);
      }
      holder.appendChild(column);
    });
  }

  // ------------------------------------------------------------ put it on the page

  var nav = sidebar();
  document.body.insertBefore(nav, document.body.firstChild);
  document.body.classList.add("course-site");
  if (stem) {
    (document.querySelector("main") || document.body).appendChild(pager());
  }
  var holder = document.getElementById("course-editions");
  if (holder) { editionLists(holder); }
  wireSearch(document.getElementById("course-search"), document.getElementById("course-results"));
}());
