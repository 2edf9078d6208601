package site

import (
	"bytes"
	"html/template"
	"os"

	"github.com/opslab/opslab/internal/prose"
)

// licensesOut is the output path of the page that shows the course's
// licences and the notices of the files it ships from elsewhere; every
// page's footer links it.
const licensesOut = "licenses/index.html"

// licenseFiles are the repository's licence files, in the order the
// licences page shows them: what the site ships from elsewhere first, as
// that is what a reader looking for a notice came for.
var licenseFiles = []struct{ Name, ID, Title string }{
	{"NOTICE", "notice", "Notices: files from elsewhere"},
	{"LICENSE", "code", "Code: Apache License 2.0"},
	{"LICENSE-CONTENT", "content", "Prose and figures: CC BY 4.0"},
}

// wasmExecOut is where the site puts the Go distribution's wasm_exec.js.
const wasmExecOut = "_assets/wasm_exec.js"

// foreign lists the files the site ships that the course did not write, as
// output paths or path.Match patterns. NOTICE names each, with its origin
// and licence; the site's tests fail for a shipped file from elsewhere that
// NOTICE does not name.
var foreign = []string{
	wasmExecOut,     // copied from the Go distribution (BSD-3-Clause)
	"_demos/*.wasm", // compiled demos: they hold the Go runtime and standard library
}

// hasLicenses reports whether the repository has all its licence files;
// a repository without them (a test's) gets no licences page and no
// footer link to one.
func (b *builder) hasLicenses() bool {
	for _, f := range licenseFiles {
		if _, err := os.Stat(b.abs(f.Name)); err != nil {
			return false
		}
	}
	return true
}

// licensesPage renders the licences page from the repository's licence
// files.
func (b *builder) licensesPage() error {
	type file struct{ Name, ID, Title, Text string }
	ids := prose.NewIDs()
	d := struct {
		TitleID string
		Files   []file
	}{TitleID: ids.Unique("licences-and-notices")}
	var toc []prose.Heading
	for _, f := range licenseFiles {
		text, err := os.ReadFile(b.abs(f.Name))
		if err != nil {
			return err
		}
		id := ids.Unique(f.ID)
		d.Files = append(d.Files, file{Name: f.Name, ID: id, Title: f.Title, Text: string(text)})
		toc = append(toc, prose.Heading{Level: 2, Text: f.Title, ID: id})
	}
	var body bytes.Buffer
	if err := templates.ExecuteTemplate(&body, "licenses.html", d); err != nil {
		return err
	}
	page, err := b.layout(licensesOut, "Licences and notices", "The licences of the opslab course and the notices of the files its site ships from elsewhere.", template.HTML(body.String()), toc, nil)
	if err != nil {
		return err
	}
	b.files[licensesOut] = page
	return nil
}
