package site

import (
	"encoding/json"
	"fmt"
	"html"
	"path"
	"path/filepath"
	"strings"

	gast "github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"

	"github.com/opslab/opslab/internal/proof"
)

// claimsFile is the name of a chapter's claims, beside its page.
const claimsFile = "claims.json"

// A claimMark is a claim's footnote reference.
type claimMark struct {
	gast.BaseInline
	link  *extast.FootnoteLink
	claim string
}

var kindClaimMark = gast.NewNodeKind("ClaimMark")

func (c *claimMark) Kind() gast.NodeKind           { return kindClaimMark }
func (c *claimMark) Dump(source []byte, level int) { gast.DumpHelper(c, source, level, nil, nil) }

// claimMark renders the mark as the footnote reference it stands for, with
// the same IDs, so that the footnote's way back still leads here.
func (r *nodeRenderer) claimMark(w util.BufWriter, src []byte, n gast.Node, entering bool) (gast.WalkStatus, error) {
	if !entering {
		return gast.WalkSkipChildren, nil
	}
	c := n.(*claimMark)
	ref := ""
	if c.link.RefIndex > 0 {
		ref = fmt.Sprint(c.link.RefIndex)
	}
	fmt.Fprintf(w, `<sup id="fnref%s:%d" class="claim"><a href="#fn:%d" class="footnote-ref claim-mark" role="doc-noteref" data-claim="%s" aria-label="How we know: note %d">%d</a></sup>`,
		ref, c.link.Index, c.link.Index, html.EscapeString(c.claim), c.link.Index, c.link.Index)
	return gast.WalkSkipChildren, nil
}

// The popovers' content, by claim.
type claimJSON struct {
	Evidence string      `json:"evidence,omitempty"` // the footnote's link: the claim's section of the evidence page
	Plants   []plantJSON `json:"plants"`
}

type plantJSON struct {
	If       string     `json:"if"`
	Tests    []testJSON `json:"tests"`
	Upstream string     `json:"upstream"`
	Verdict  string     `json:"verdict,omitempty"` // as plants/verdicts.sum records it
}

type testJSON struct {
	Name  string `json:"name"`
	URL   string `json:"url,omitempty"`
	State string `json:"state,omitempty"` // passed, failed, skipped, missing, tagged, or "" without results
}

// claims turns the claim markers of a chapter's page into marks and writes
// their evidence, read from the chapter's plants, into claims.json beside
// the page. A marker of a claim without a plant stays a footnote (the
// chapter contract refuses it). With results, a claim's test that failed,
// was skipped or did not run fails the build, as a proof link's does.
func (b *builder) claims(p *page, dir string) {
	if !p.chapter {
		return
	}
	plants, err := proof.Load(b.abs(dir))
	if err != nil {
		b.problem(p.srcName(), 0, "%v", err)
		return
	}
	if len(plants) == 0 {
		return
	}
	sum, err := proof.ReadSum(b.abs(path.Join(dir, "plants", proof.SumFile)))
	if err != nil {
		b.problem(p.srcName(), 0, "%v", err)
	}
	byClaim := map[string][]*proof.Plant{}
	for _, pl := range plants {
		byClaim[pl.Claim] = append(byClaim[pl.Claim], pl)
	}
	notes := map[int]*extast.Footnote{}
	var links []*extast.FootnoteLink
	gast.Walk(p.tree, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if !entering {
			return gast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *extast.Footnote:
			notes[n.Index] = n
		case *extast.FootnoteLink:
			links = append(links, n)
		}
		return gast.WalkContinue, nil
	})
	out := map[string]*claimJSON{}
	for _, l := range links {
		note := notes[l.Index]
		if note == nil {
			continue
		}
		id := string(note.Ref)
		if len(byClaim[id]) == 0 {
			continue
		}
		l.Parent().ReplaceChild(l.Parent(), l, &claimMark{link: l, claim: id})
		if out[id] != nil {
			continue
		}
		c := &claimJSON{Evidence: firstLink(note)}
		for _, pl := range byClaim[id] {
			pj := plantJSON{If: pl.If, Upstream: pl.Upstream, Verdict: string(sum[pl.Name].Verdict)}
			for _, t := range pl.Tests {
				pj.Tests = append(pj.Tests, b.claimTest(p, dir, pl, t))
			}
			c.Plants = append(c.Plants, pj)
		}
		out[id] = c
	}
	if len(out) == 0 {
		return
	}
	data, err := json.Marshal(out)
	if err != nil {
		b.problem(p.srcName(), 0, "%v", err)
		return
	}
	b.files[path.Join(path.Dir(p.out), claimsFile)] = data
}

// firstLink returns the destination of the first link in a footnote, as
// the page's links were rewritten: its evidence.
func firstLink(note *extast.Footnote) string {
	var dest string
	gast.Walk(note, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		if l, ok := n.(*gast.Link); ok && entering && dest == "" {
			dest = string(l.Destination)
		}
		return gast.WalkContinue, nil
	})
	return dest
}

// claimTest returns a claim's test with the link to where it is declared
// (a transcript for TestScript/NAME) and its result.
func (b *builder) claimTest(p *page, dir string, pl *proof.Plant, test string) testJSON {
	t := testJSON{Name: test}
	pkgDir := path.Join(dir, pl.Pkg)
	fn, sub, _ := strings.Cut(test, "/")
	constraint := ""
	if fn == "TestScript" && sub != "" {
		if script := path.Join(pkgDir, "testdata", sub+".txtar"); b.exists(script) {
			t.URL, _ = b.linkURL(p, script, "", false)
		}
	}
	files, _ := filepath.Glob(filepath.Join(b.abs(pkgDir), "*_test.go"))
	for _, f := range files {
		tf := b.checker.TestFile(f)
		line, ok := tf.Funcs[fn]
		if !ok {
			continue
		}
		constraint = tf.Constraint
		if t.URL == "" {
			if u, err := b.linkURL(p, path.Join(pkgDir, filepath.Base(f)), "", false); err == nil {
				t.URL = fmt.Sprintf("%s#L%d", u, line)
			}
		}
		break
	}
	if b.results == nil {
		return t
	}
	pkg := b.modPath
	if pkgDir != "." {
		pkg += "/" + pkgDir
	}
	t.State = b.results.state(pkg, test)
	switch {
	case t.State == "passed":
	case t.State == "missing" && constraint != "":
		t.State = "tagged" // an end-to-end test, which needs a cluster
	case t.State == "missing":
		b.problem(p.srcName(), 0, "claim %s: its test %s (%s) has no result in %s: run go test -json on its package", pl.Claim, test, pkg, b.cfg.Results)
	default:
		b.problem(p.srcName(), 0, "claim %s: its test %s (%s) %s in %s", pl.Claim, test, pkg, t.State, b.cfg.Results)
	}
	return t
}

func (b *builder) exists(p string) bool {
	_, err := b.checker.ReadFile(b.abs(p))
	return err == nil
}
