package site

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/opslab/opslab/chapters"
	"github.com/opslab/opslab/internal/figure"
	"github.com/opslab/opslab/internal/learn"
	"github.com/opslab/opslab/internal/prose"
)

const testRepo = "testdata/repo"

// build builds the site of repo into a new directory and returns it.
func build(t testing.TB, repo, results string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Build(Config{Root: repo, Out: out, Results: results}); err != nil {
		t.Fatalf("Build(%s):\n%v", repo, err)
	}
	return out
}

func read(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestSite(t *testing.T) {
	out := build(t, testRepo, "")
	for _, f := range []string{
		"index.html", "readme.html", "CONTRIBUTING.html", "search-index.json",
		"chapters/01-alpha/index.html", "chapters/02-beta/index.html",
		"chapters/01-alpha/model_test.go.html", "chapters/01-alpha/model.go.html",
		"chapters/01-alpha/alphasim/testdata/drain_stalls.txtar.html",
		"chapters/01-alpha/lab/index.html", "chapters/01-alpha/lab/web.yaml.html",
		"_assets/site.css", "_assets/site.js", "_assets/theme.js",
	} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("the site has no %s: %v", f, err)
		}
	}
	ch1 := read(t, filepath.Join(out, "chapters/01-alpha/index.html"))
	for _, want := range []struct{ name, html string }{
		{"a proof links the line that declares its test", `<a href="model_test.go.html#L11" class="proof"><code>TestEvictRefused</code></a><span class="badge badge-proof"`},
		{"a transcript proof links the transcript", `<a href="alphasim/testdata/drain_stalls.txtar.html" class="proof">drain_stalls</a>`},
		{"a link to a directory becomes its listing", `<a href="lab/index.html">the lab</a>`},
		{"a link to another chapter keeps its anchor", `<a href="../02-beta/index.html#the-second-idea">next chapter</a>`},
		{"a link to a line of a source file keeps it", `<a href="model.go.html#L2">line 2</a>`},
		{"a link above the chapters becomes a page", `<a href="../../CONTRIBUTING.html">the guide</a>`},
		{"headings carry GitHub's IDs and a permalink", `<h2 id="evicting-under-a-budget">Evicting under a budget<a class="permalink" href="#evicting-under-a-budget" aria-hidden="true" tabindex="-1">#</a></h2>`},
		{"Japanese headings keep their letters", `<h2 id="退避の順序">`},
		{"code is highlighted with classes", `<span class="kd">func</span>`},
		{"code blocks can be scrolled from the keyboard", `<pre tabindex="0" class="chroma">`},
		{"unstyled tokens carry no span", `<span class="kd">func</span> <span class="nf">Evict</span>(pods <span class="kt">int</span>, floor <span class="kt">int</span>) <span class="kt">bool</span> {`},
		{"ASCII diagrams keep their spaces", "  node-1          node-2\n"},
		{"indented blocks are kept, escaped, and scroll", `<div class="code"><pre tabindex="0" class="chroma"><code>a &lt;b&gt;diagram&lt;/b&gt; ---`},
		{"a fence without a language is kept and escaped", `<div class="code" data-lang=""><pre class="chroma" tabindex="0"><code>&lt;i&gt;kept&lt;/i&gt;   as   it is` + "\n</code></pre></div>"},
		{"tables align by attribute, not by style", `<th align="center">asks?</th>`},
		{"tables, which scroll when wide, take the keyboard's focus", `<table tabindex="0">`},
		{"footnotes", `<sup id="fnref:1"><a href="#fn:1" class="footnote-ref" role="doc-noteref">1</a></sup>`},
		{"script tags in Markdown are text", `&lt;script&gt;alert(1)&lt;/script&gt;`},
		{"event handlers in Markdown are text", `&lt;b onclick=&#34;x()&#34;&gt;bold&lt;/b&gt;`},
		{"block HTML outside the allow-list is text", `&lt;div onmouseover=&#34;steal()&#34;&gt;not a div&lt;/div&gt;`},
		{"details and summary are allowed", "<details>\n<summary>Why a floor?</summary>"},
		{"the sidebar lists the page's headings", `<li class="toc-2"><a href="#evicting-under-a-budget">Evicting under a budget</a></li>`},
		{"the current chapter is marked", `<a href="index.html" aria-current="page">Chapter 1: the floor</a>`},
		{"previous is the index", `<a class="prev" rel="prev" href="../../index.html"><span>Previous</span> A test course</a>`},
		{"next is chapter 2", `<a class="next" rel="next" href="../02-beta/index.html"><span>Next</span> Chapter 2: the second idea</a>`},
		{"a figure is inlined in its paragraph", `<p class="figure"><svg xmlns="http://www.w3.org/2000/svg" class="fig" role="img"`},
		{"an inlined figure keeps its title and description", "<title>Leaving the node</title>\n<desc>web-1 leaves at once; web-2 after 300 seconds.</desc>"},
		{"the CSP allows only the site", `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;self&#39;;`},
	} {
		if !strings.Contains(ch1, want.html) {
			t.Errorf("chapter 1: %s: no %q", want.name, want.html)
		}
	}
	if strings.Contains(ch1, "quote model.go") {
		t.Errorf("chapter 1: a quote marker was rendered; markers are consumed")
	}
	if strings.Contains(ch1, "<img") {
		t.Errorf("chapter 1: a figure was left as an <img>; figures are inlined")
	}
	if css := read(t, filepath.Join(out, "_assets/site.css")); !strings.Contains(css, figure.StyleSheet) {
		t.Errorf("_assets/site.css lacks the figures' style sheet: an inlined figure, without its own <style>, would have no palette")
	}
	index := read(t, filepath.Join(out, "index.html"))
	for _, want := range []string{
		`<li><a href="chapters/01-alpha/index.html">Chapter 1: the floor</a><p>A budget is a floor the application declares.</p></li>`,
		`<code>make start</code>`, `<code>make test</code>`,
		`<p>A course that exists to test the site builder. It has two chapters.</p>`,
	} {
		if !strings.Contains(index, want) {
			t.Errorf("index: no %q", want)
		}
	}
	src := read(t, filepath.Join(out, "chapters/01-alpha/model_test.go.html"))
	if !strings.Contains(src, `<span class="line" id="L11"><span class="kd">func</span> <span class="nf">TestEvictRefused</span>(t *testing.T) {</span>`) {
		t.Errorf("source page: line 11 has no anchor")
	}
	checkPages(t, out)
}

// checkPages checks every HTML page of a built site: each relative link and
// anchor resolves, nothing is loaded from outside, no inline script, style
// or event handler.
func checkPages(t *testing.T, out string) {
	t.Helper()
	hrefRE := regexp.MustCompile(`\s(?:href|src)="([^"]*)"`)
	idRE := regexp.MustCompile(`\sid="([^"]*)"`)
	ids := map[string]map[string]bool{}
	pageIDs := func(name string) map[string]bool {
		if m, ok := ids[name]; ok {
			return m
		}
		m := map[string]bool{}
		data, _ := os.ReadFile(name)
		for _, id := range idRE.FindAllStringSubmatch(string(data), -1) {
			m[html.UnescapeString(id[1])] = true
		}
		ids[name] = m
		return m
	}
	pages := 0
	filepath.WalkDir(out, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(name, ".html") {
			return err
		}
		pages++
		rel, _ := filepath.Rel(out, name)
		body := read(t, name)
		for _, bad := range []*regexp.Regexp{
			regexp.MustCompile(`<script>|<script [^>]*>[^<]`),  // inline script
			regexp.MustCompile(`<[^>]*\son[a-z]+=`),            // event handler
			regexp.MustCompile(`<[^>]*\sstyle=|<style`),        // inline style
			regexp.MustCompile(`(?:src|href)="(?:https?:)?//`), // a resource from outside (links in prose are not resources, but none is expected in tests)
		} {
			if m := bad.FindString(body); m != "" && !(strings.Contains(bad.String(), "https?") && strings.HasPrefix(m, `href=`)) {
				t.Errorf("%s: %q is not allowed", rel, m)
			}
		}
		if !strings.Contains(body, `<meta http-equiv="Content-Security-Policy"`) {
			t.Errorf("%s: no Content-Security-Policy", rel)
		}
		for _, m := range hrefRE.FindAllStringSubmatch(body, -1) {
			u, err := url.Parse(html.UnescapeString(m[1]))
			if err != nil {
				t.Errorf("%s: bad URL %q: %v", rel, m[1], err)
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				continue
			}
			target := name
			if u.Path != "" {
				target = filepath.Join(filepath.Dir(name), filepath.FromSlash(u.Path))
				if fi, err := os.Stat(target); err != nil {
					t.Errorf("%s: broken link %s", rel, m[1])
					continue
				} else if fi.IsDir() {
					target = filepath.Join(target, "index.html")
				}
			}
			if u.Fragment != "" && strings.HasSuffix(target, ".html") && !pageIDs(target)[u.Fragment] {
				t.Errorf("%s: link %s: no element with ID %q", rel, m[1], u.Fragment)
			}
		}
		return nil
	})
	if pages == 0 {
		t.Errorf("no pages in %s", out)
	}
}

// copyRepo copies the test course into a new directory, for a test to
// break.
func copyRepo(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "repo")
	err := filepath.WalkDir(testRepo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(testRepo, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func edit(t *testing.T, name, old, new string) {
	t.Helper()
	data := read(t, name)
	if !strings.Contains(data, old) {
		t.Fatalf("%s has no %q to replace", name, old)
	}
	if err := os.WriteFile(name, []byte(strings.Replace(data, old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// result is one line of go test -json output.
func result(action, pkg, test string) string {
	return fmt.Sprintf(`{"Action":%q,"Package":%q,"Test":%q}`, action, pkg, test)
}

const alphaPkg = "example.com/course/chapters/01-alpha"

// passing are results in which every proof of the test course passed.
var passing = []string{
	result("run", alphaPkg, "TestEvictAllowed"),
	result("pass", alphaPkg, "TestEvictAllowed"),
	result("pass", alphaPkg, "TestEvictRefused"),
	result("pass", alphaPkg+"/alphasim", "TestScript/drain_stalls"),
	result("pass", alphaPkg+"/alphasim", "TestScript"),
}

func TestBuildFails(t *testing.T) {
	ch1 := "chapters/01-alpha/README.md"
	tests := []struct {
		name, reason string
		breakIt      func(t *testing.T, repo string)
		results      []string // nil: build without results
		want         []string
	}{
		{
			name:   "stale quote",
			reason: "a copy that no longer matches its source fails the build",
			breakIt: func(t *testing.T, repo string) {
				edit(t, filepath.Join(repo, "chapters/01-alpha/model.go"), "pods-1 >= floor", "pods > floor")
			},
			want: []string{ch1 + ":11: stale quote of model.go#Evict: run make quotes"},
		},
		{
			name:   "missing declaration",
			reason: "a quote of a declaration that is gone fails the build",
			breakIt: func(t *testing.T, repo string) {
				edit(t, filepath.Join(repo, ch1), "model.go#Evict", "model.go#Drain")
			},
			want: []string{ch1 + ":11: quote of model.go#Drain: model.go has no declaration Drain"},
		},
		{
			name:   "missing test",
			reason: "a proof naming a test that does not exist fails the build",
			breakIt: func(t *testing.T, repo string) {
				edit(t, filepath.Join(repo, ch1), "[`TestEvictRefused`]", "[`TestEvictDenied`]")
			},
			want: []string{ch1 + ":8: proof link names TestEvictDenied, which model_test.go does not declare"},
		},
		{
			name:   "broken link",
			reason: "a link to a missing file fails the build",
			breakIt: func(t *testing.T, repo string) {
				edit(t, filepath.Join(repo, ch1), "(lab/web.yaml)", "(lab/db.yaml)")
			},
			want: []string{ch1 + ":59: broken link to lab/db.yaml: lab/db.yaml does not exist"},
		},
		{
			name:   "broken anchor",
			reason: "a link to a heading that does not exist fails the build",
			breakIt: func(t *testing.T, repo string) {
				edit(t, filepath.Join(repo, "chapters/02-beta/README.md"), "## The second idea", "## The 2nd idea")
			},
			want: []string{ch1 + `:59: broken link to ../02-beta/README.md#the-second-idea: ../02-beta/README.md has no heading with ID "the-second-idea"`},
		},
		{
			name:   "anchor into a source file",
			reason: "only line anchors exist on source pages",
			breakIt: func(t *testing.T, repo string) {
				edit(t, filepath.Join(repo, ch1), "(model.go#L2)", "(model.go#Evict)")
			},
			want: []string{ch1 + ":59: broken link to model.go#Evict: only a line (#L10) or lines (#L10-L20) can be named in model.go"},
		},
		{
			name:   "link out of the repository",
			reason: "the site cannot show a file outside the repository",
			breakIt: func(t *testing.T, repo string) {
				edit(t, filepath.Join(repo, "CONTRIBUTING.md"), "(README.md#start)", "(../repo/README.md#start)")
			},
			want: []string{"CONTRIBUTING.md:3: link to ../repo/README.md#start: it leaves the repository, so the site cannot show it"},
		},
		{
			name:    "failed proof",
			reason:  "a proof whose test failed fails the build",
			results: append([]string{result("fail", alphaPkg, "TestEvictRefused")}, passing...),
			want:    []string{ch1 + ":8: proof TestEvictRefused (" + alphaPkg + ") failed in results.json"},
		},
		{
			name:    "proof without result",
			reason:  "a proof whose test did not run fails the build",
			results: passing[:3],
			want:    []string{ch1 + ":9: proof TestScript/drain_stalls (" + alphaPkg + "/alphasim) has no result in results.json: run go test -json on its package"},
		},
		{
			name:    "failed end-to-end proof",
			reason:  "a test behind a build tag may lack a result, but not fail",
			results: append([]string{result("fail", alphaPkg, "TestEvictOnCluster")}, passing...),
			want:    []string{"chapters/02-beta/README.md:8: proof TestEvictOnCluster (" + alphaPkg + ") failed in results.json"},
		},
		{
			name:    "skipped proof",
			reason:  "a skipped test proves nothing",
			results: append([]string{result("skip", alphaPkg, "TestEvictAllowed")}, passing[2:]...),
			want:    []string{ch1 + ":7: proof TestEvictAllowed (" + alphaPkg + ") skipped in results.json"},
		},
		{
			name:   "README without make test",
			reason: "the index tells readers to run make start and make test, so the README must still say so",
			breakIt: func(t *testing.T, repo string) {
				edit(t, filepath.Join(repo, "README.md"), "make test", "make check")
			},
			want: []string{"README.md:1: the README no longer mentions make test, which the index page tells readers to run"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := copyRepo(t)
			if tt.breakIt != nil {
				tt.breakIt(t, repo)
			}
			cfg := Config{Root: repo, Out: filepath.Join(t.TempDir(), "out")}
			if tt.results != nil {
				cfg.Results = "results.json"
				wd, _ := os.Getwd()
				defer os.Chdir(wd)
				os.Chdir(t.TempDir())
				os.WriteFile("results.json", []byte(strings.Join(tt.results, "\n")+"\n"), 0o644)
			}
			_, err := Build(cfg)
			var be *BuildError
			if !errors.As(err, &be) {
				t.Fatalf("Build = %v, want a *BuildError (%s)", err, tt.reason)
			}
			var got []string
			for _, p := range be.Problems {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Build problems (-want +got):\n%s\n%s", diff, tt.reason)
			}
			if _, err := os.Stat(cfg.Out); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a failed build wrote %s", cfg.Out)
			}
		})
	}
}

func TestBuildWithResults(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results.json")
	lines := append([]string{"# a line of build output, passed through by go test -json"}, passing...)
	os.WriteFile(results, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	out := build(t, testRepo, results)
	ch1 := read(t, filepath.Join(out, "chapters/01-alpha/index.html"))
	if n := strings.Count(ch1, `<span class="badge badge-passed" title="go test: passed">passed</span>`); n != 3 {
		t.Errorf("chapter 1 has %d passed badges, want 3 (one per proof)", n)
	}
	ch2 := read(t, filepath.Join(out, "chapters/02-beta/index.html"))
	want := `<a href="../01-alpha/e2e_test.go.html#L7" class="proof"><code>TestEvictOnCluster</code></a><span class="badge badge-tagged" title="an end-to-end test: it needs a cluster and did not run for this build">end-to-end</span>`
	if !strings.Contains(ch2, want) {
		t.Errorf("chapter 2: an end-to-end proof without a result is not shown as such: no %s", want)
	}

	// With the end-to-end results too (a second file), it shows its result.
	e2e := filepath.Join(t.TempDir(), "e2e.json")
	os.WriteFile(e2e, []byte(result("pass", alphaPkg, "TestEvictOnCluster")+"\n"), 0o644)
	out = build(t, testRepo, results+","+e2e)
	ch2 = read(t, filepath.Join(out, "chapters/02-beta/index.html"))
	if !strings.Contains(ch2, `<code>TestEvictOnCluster</code></a><span class="badge badge-passed"`) {
		t.Errorf("chapter 2: the end-to-end proof does not show its result from the second results file")
	}
}

func TestBuildKeepsForeignDirectory(t *testing.T) {
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "precious.txt"), []byte("mine"), 0o644)
	_, err := Build(Config{Root: testRepo, Out: out})
	if err == nil || !strings.Contains(err.Error(), "holds files the site did not write") {
		t.Fatalf("Build into a directory of other files = %v, want a refusal", err)
	}
	if _, err := os.Stat(filepath.Join(out, "precious.txt")); err != nil {
		t.Errorf("Build removed a file it did not write: %v", err)
	}
	// A directory the site wrote is rebuilt.
	out = filepath.Join(t.TempDir(), "site")
	for i := 0; i < 2; i++ {
		if _, err := Build(Config{Root: testRepo, Out: out}); err != nil {
			t.Fatalf("build %d into %s: %v", i+1, out, err)
		}
	}
}

func TestSanitize(t *testing.T) {
	tests := []struct{ name, reason, raw, want string }{
		{"marker", "quote markers are consumed", "<!-- quote x.go#Y -->\n", "\n"},
		{"details", "details and summary pass", "<details open>\n<summary>Why</summary>\n", "<details open>\n<summary>Why</summary>\n"},
		{"script", "a script is text", "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"handler on an allowed tag", "only the bare tags are allowed", `<details ontoggle="x()">`, "&lt;details ontoggle=&#34;x()&#34;&gt;"},
		{"img", "an image tag is text", `<img src=x onerror=alert(1)>`, "&lt;img src=x onerror=alert(1)&gt;"},
		{"comment hiding a tag", "a comment is dropped whole", "<!-- <script> -->text", "text"},
	}
	for _, tt := range tests {
		if got := sanitize(tt.raw); got != tt.want {
			t.Errorf("%s: sanitize(%q) = %q, want %q (%s)", tt.name, tt.raw, got, tt.want, tt.reason)
		}
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		name, reason, text string
		want               []string
	}{
		{"english", "words in lower case; one letter is no word", "A Drain stalls, at 5s.", []string{"drain", "stalls", "at", "5s"}},
		{"japanese", "runs without spaces become bigrams", "予算は床です", []string{"予算", "算は", "は床", "床で", "です"}},
		{"mixed", "a Latin word inside Japanese is a word", "PDBの床", []string{"pdb", "の床"}},
		{"single", "a lone kanji is its own term", "床 and floor", []string{"床", "and", "floor"}},
		{"katakana", "the prolonged sound mark belongs to the run", "ノード", []string{"ノー", "ード"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Terms(tt.text)); diff != "" {
			t.Errorf("%s: Terms(%q) (-want +got):\n%s\n%s", tt.name, tt.text, diff, tt.reason)
		}
	}
}

func TestSearchIndex(t *testing.T) {
	out := build(t, testRepo, "")
	idx := read(t, filepath.Join(out, "search-index.json"))
	for _, term := range []string{`"zanzibar":[`, `"予算":[`, `"床で":[`} {
		if !strings.Contains(idx, term) {
			t.Errorf("search index has no term %s", term)
		}
	}
	if strings.Contains(idx, `"pods":[`) {
		t.Errorf("search index holds a word only found in quoted code; code is left out")
	}
	if !strings.Contains(idx, `"leaving":[`) || strings.Contains(idx, `"stroke":[`) {
		t.Errorf("search index: an inlined figure should be found by the words of its title and description, not by its markup")
	}
	var parsed searchIndex
	if err := json.Unmarshal([]byte(idx), &parsed); err != nil {
		t.Fatal(err)
	}
	for _, s := range parsed.Sections {
		if s.Title != strings.Join(strings.Fields(s.Title), " ") {
			t.Errorf("section title %q has spaces at an end or doubled", s.Title)
		}
	}
}

// maxPageBytes is the budget of a page: its HTML with the CSS and scripts
// every page loads.
const maxPageBytes = 150 << 10

func TestPageBudget(t *testing.T) {
	if PageBudget != maxPageBytes {
		t.Errorf("PageBudget = %d, want %d (150 KB)", PageBudget, maxPageBytes)
	}
}

// checkWeights checks that every page, with the stylesheets, scripts,
// icon and images it loads, stays within the budget. A figure is inlined,
// so its bytes are the page's; an image left as <img> is counted as a
// load. A demo's wasm is not counted: it is fetched only when the reader
// starts the demo.
func checkWeights(t *testing.T, out string) {
	t.Helper()
	loads := regexp.MustCompile(`<script src="([^"]*)"|<link rel="(?:stylesheet|icon)" href="([^"]*)"|<img src="([^"]*)"`)
	filepath.WalkDir(out, func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(name, ".html") {
			return err
		}
		rel, _ := filepath.Rel(out, name)
		fi, _ := d.Info()
		total := int(fi.Size())
		for _, m := range loads.FindAllStringSubmatch(read(t, name), -1) {
			f := filepath.Join(filepath.Dir(name), filepath.FromSlash(m[1]+m[2]+m[3]))
			ai, err := os.Stat(f)
			if err != nil {
				t.Errorf("%s loads %s%s%s, which is not there", rel, m[1], m[2], m[3])
				continue
			}
			total += int(ai.Size())
		}
		if total > maxPageBytes {
			t.Errorf("%s weighs %d bytes with its CSS, JS, images and figures, over the budget of %d", rel, total, maxPageBytes)
		}
		return nil
	})
}

func TestPageWeight(t *testing.T) {
	checkWeights(t, build(t, testRepo, ""))
}

// TestHeavyPageFailsTheBuild pads a chapter past the budget: the build
// fails, naming the page, its weight and how far over it is, and writes
// nothing.
func TestHeavyPageFailsTheBuild(t *testing.T) {
	repo := copyRepo(t)
	readme := filepath.Join(repo, "chapters/01-alpha/README.md")
	pad := "\n\n" + strings.Repeat("A paragraph that a chapter does not need. ", PageBudget/40) + "\n"
	if err := os.WriteFile(readme, append([]byte(read(t, readme)), pad...), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	_, err := Build(Config{Root: repo, Out: out})
	var be *BuildError
	if !errors.As(err, &be) || len(be.Problems) != 1 {
		t.Fatalf("Build = %v, want one problem", err)
	}
	msg := be.Problems[0].String()
	if !regexp.MustCompile(`^chapters/01-alpha/README.md:1: its page chapters/01-alpha/index.html weighs [0-9]+ bytes .* [0-9]+ over the budget of 153600 \(150 KB\): cut prose`).MatchString(msg) {
		t.Errorf("the problem is %q, want the page, its weight, the excess and a way out", msg)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed build left %s behind (%v)", out, err)
	}
}

// TestCourse builds the course itself as it is published, every chapter
// with its build-along track: it fails on a stale quote, a missing test, a
// broken link or a page over the budget in any chapter, and checks every
// page it wrote. The build weighs each page itself, so make site, whose
// badges carry each test's result, holds the published pages to the same
// budget.
func TestCourse(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Build(Config{Root: *courseRoot, Out: out, Tracks: chapters.Tracks}); err != nil {
		t.Fatalf("Build(%s):\n%v", *courseRoot, err)
	}
	checkPages(t, out)
	checkWeights(t, out)
	checkDemoBudget(t, out)
}

// demoBudget is the most a demo's WebAssembly may weigh, uncompressed: what
// a reader downloads before the demo runs (3 MB, counted in bytes).
const demoBudget = 3_000_000

// checkDemoBudget fails for a demo over the budget, and when a chapter has
// no compiled demo at all.
func checkDemoBudget(t *testing.T, out string) {
	t.Helper()
	chapters, _ := filepath.Glob(filepath.Join(*courseRoot, "chapters", "*", "demo"))
	wasm, _ := filepath.Glob(filepath.Join(out, "_demos", "*.wasm"))
	if len(wasm) == 0 || len(wasm) != len(chapters) {
		t.Fatalf("%d compiled demos for %d chapters with a demo", len(wasm), len(chapters))
	}
	for _, f := range wasm {
		st, err := os.Stat(f) // follows the link into the demo cache
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > demoBudget {
			t.Errorf("%s is %d bytes, over the demo budget of %d: keep Kubernetes API types out of what the demo imports", filepath.Base(f), st.Size(), demoBudget)
		}
	}
}

var courseRoot = flag.String("site.root", "..", "the repository TestCourse and the benchmarks build")

// BenchmarkBuild builds the whole course, every chapter, with the demos
// from the repository's demo cache (after the first build, a warm one).
func BenchmarkBuild(b *testing.B) {
	out := filepath.Join(b.TempDir(), "out")
	for b.Loop() {
		if _, err := Build(Config{Root: *courseRoot, Out: out}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildWithResults builds the whole course as make site does,
// with a result for every proof (all passing), so each proof's test file is
// also read for its build constraint.
func BenchmarkBuildWithResults(b *testing.B) {
	results := passAll(b, *courseRoot)
	out := filepath.Join(b.TempDir(), "out")
	for b.Loop() {
		if _, err := Build(Config{Root: *courseRoot, Out: out, Results: results}); err != nil {
			b.Fatal(err)
		}
	}
}

// passAll writes go test -json results in which every proof of every
// Markdown file under root passed, and returns the file's name.
func passAll(b *testing.B, root string) string {
	b.Helper()
	mod, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		b.Fatal(err)
	}
	var lines []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "out") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		doc, err := prose.Parse(p)
		if err != nil {
			return err
		}
		for _, pr := range doc.Proofs {
			rel, err := filepath.Rel(root, filepath.Join(filepath.Dir(p), filepath.FromSlash(pr.Dir)))
			if err != nil {
				return err
			}
			pkg := mod
			if rel != "." {
				pkg += "/" + filepath.ToSlash(rel)
			}
			lines = append(lines, result("pass", pkg, pr.Test))
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	name := filepath.Join(b.TempDir(), "results.json")
	if err := os.WriteFile(name, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return name
}

// BenchmarkBuildColdDemoCache builds the whole course with an empty demo
// cache each time, so every demo is compiled (go build's own cache is left
// as it is).
func BenchmarkBuildColdDemoCache(b *testing.B) {
	out := filepath.Join(b.TempDir(), "out")
	for b.Loop() {
		if _, err := Build(Config{Root: *courseRoot, Out: out, DemoCache: b.TempDir()}); err != nil {
			b.Fatal(err)
		}
	}
}

// contrastPairs are the text and background colours the stylesheet
// combines; each must reach WCAG AA (4.5:1) in both themes.
var contrastPairs = [][2]string{
	{"fg", "bg"}, {"muted", "bg"}, {"link", "bg"}, {"fg", "side-bg"}, {"muted", "side-bg"}, {"link", "side-bg"},
	{"link", "mark-bg"}, {"fg", "mark-bg"}, {"muted", "mark-bg"},
	{"code-fg", "code-bg"}, {"pass-fg", "pass-bg"}, {"fail-fg", "fail-bg"}, {"warn-fg", "warn-bg"}, {"proof-fg", "proof-bg"},
	{"tok-keyword", "code-bg"}, {"tok-string", "code-bg"}, {"tok-comment", "code-bg"}, {"tok-func", "code-bg"},
	{"tok-number", "code-bg"}, {"tok-type", "code-bg"}, {"tok-tag", "code-bg"}, {"tok-attr", "code-bg"},
	{"muted", "code-bg"}, {"fail-fg", "code-bg"}, {"pass-fg", "code-bg"},
}

func TestContrast(t *testing.T) {
	css, err := embedded.ReadFile("assets/site.css")
	if err != nil {
		t.Fatal(err)
	}
	colors := map[string][2]string{}
	for _, m := range regexp.MustCompile(`--([a-z-]+): light-dark\((#[0-9a-f]{6}), (#[0-9a-f]{6})\)`).FindAllStringSubmatch(string(css), -1) {
		colors[m[1]] = [2]string{m[2], m[3]}
	}
	for _, p := range contrastPairs {
		fg, ok1 := colors[p[0]]
		bg, ok2 := colors[p[1]]
		if !ok1 || !ok2 {
			t.Errorf("site.css does not define --%s and --%s as light-dark pairs", p[0], p[1])
			continue
		}
		for i, theme := range []string{"light", "dark"} {
			if r := contrast(fg[i], bg[i]); r < 4.5 {
				t.Errorf("%s theme: --%s %s on --%s %s has contrast %.2f, want at least 4.5 (WCAG AA)", theme, p[0], fg[i], p[1], bg[i], r)
			}
		}
	}
	// A field's edge is no text: 3:1 against every background a field sits on.
	for _, bg := range []string{"bg", "side-bg", "code-bg"} {
		for i, theme := range []string{"light", "dark"} {
			if r := contrast(colors["field-border"][i], colors[bg][i]); r < 3 {
				t.Errorf("%s theme: --field-border %s on --%s %s has contrast %.2f, want at least 3 (WCAG 1.4.11)", theme, colors["field-border"][i], bg, colors[bg][i], r)
			}
		}
	}
}

func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

func luminance(hex string) float64 {
	var c [3]float64
	for i := range c {
		v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		s := float64(v) / 255
		if s <= 0.04045 {
			c[i] = s / 12.92
		} else {
			c[i] = math.Pow((s+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
}

func TestRelURL(t *testing.T) {
	tests := []struct{ from, to, want string }{
		{"index.html", "chapters/01-pdb/index.html", "chapters/01-pdb/index.html"},
		{"chapters/01-pdb/index.html", "index.html", "../../index.html"},
		{"chapters/01-pdb/index.html", "chapters/02-taints/index.html", "../02-taints/index.html"},
		{"chapters/01-pdb/index.html", "chapters/01-pdb/lab/ledger.yaml.html", "lab/ledger.yaml.html"},
		{"chapters/01-pdb/lab/index.html", "chapters/01-pdb/index.html", "../index.html"},
	}
	for _, tt := range tests {
		if got := relURL(tt.from, tt.to); got != tt.want {
			t.Errorf("relURL(%s, %s) = %s, want %s", tt.from, tt.to, got, tt.want)
		}
	}
	_ = path.Join
}

func TestGoTokens(t *testing.T) {
	src := "package a\n\n// F adds.\nfunc F(x int) error { /* c */ return append(nil, `s`, 'c', 1.5) }\n"
	var got []string
	text := ""
	for _, tok := range goTokens(src) {
		text += tok.Value
		if c := tokenClass(tok.Type); c != "" {
			got = append(got, c+":"+tok.Value)
		}
	}
	if text != src {
		t.Errorf("goTokens put together = %q, want the source %q", text, src)
	}
	want := []string{"kn:package", "c1:// F adds.", "kd:func", "nf:F", "kt:int", "kt:error", "cm:/* c */", "k:return", "nb:append", "kc:nil", "s:`s`", "s:'c'", "m:1.5"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("goTokens classes (-want +got):\n%s", diff)
	}
}

// TestTrackSection: a chapter's page ends with its build-along track, each
// step linking its section and the source of the function to write; a step
// naming a section the page lacks fails the build.
func TestTrackSection(t *testing.T) {
	tr := learn.Track{Dir: "01-alpha", Steps: []learn.Step{{
		ID: "evict", Title: "Evict or not", Section: "evicting-under-a-budget",
		Funcs: []string{"model.go#Evict"}, Tests: []string{"TestEvictAllowed", "TestEvictRefused"}, Hints: []string{"h"},
	}}}
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Build(Config{Root: testRepo, Out: out, Tracks: []learn.Track{tr}}); err != nil {
		t.Fatal(err)
	}
	ch1 := read(t, filepath.Join(out, "chapters/01-alpha/index.html"))
	for _, want := range []string{
		`<h2 id="build-it-yourself">Build it yourself`,
		`<li><a href="#evicting-under-a-budget">Evict or not</a>`,
		`<a href="model.go.html"><code>Evict</code></a>; 2 tests to pass.</li>`,
		`href="#build-it-yourself"`,
	} {
		if !strings.Contains(ch1, want) {
			t.Errorf("chapter 1's page lacks %s", want)
		}
	}
	tr.Steps[0].Section = "no-such-section"
	_, err := Build(Config{Root: testRepo, Out: filepath.Join(t.TempDir(), "out"), Tracks: []learn.Track{tr}})
	if err == nil || !strings.Contains(err.Error(), "track step evict: the page has no section #no-such-section") {
		t.Errorf("Build with a step naming a missing section = %v, want it refused", err)
	}
}
