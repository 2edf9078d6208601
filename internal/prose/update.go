package prose

import (
	"bytes"
	"os"
	"path/filepath"
)

// Update rewrites the stale copies of the Markdown file at path from their
// sources and reports whether it changed the file. Quotes whose source
// cannot be read are left as they are: Check reports them. The file is
// replaced atomically, and only when its content changes.
func Update(path string) (changed bool, err error) {
	d, err := Parse(path)
	if err != nil {
		return false, err
	}
	out, n := d.Updated()
	if n == 0 {
		return false, nil
	}
	return true, writeFile(path, out)
}

// Updated returns the document's source with every stale copy rewritten,
// and how many copies it rewrote.
func (d *Doc) Updated() ([]byte, int) {
	var out bytes.Buffer
	last, n := 0, 0
	for _, q := range d.Quotes {
		want, err := d.Want(q)
		if err != nil || bytes.Equal(want, d.Source[q.blockStart:q.blockEnd]) {
			continue
		}
		out.Write(d.Source[last:q.blockStart])
		out.Write(want)
		last = q.blockEnd
		n++
	}
	if n == 0 {
		return d.Source, 0
	}
	out.Write(d.Source[last:])
	return out.Bytes(), n
}

// writeFile replaces name with data atomically: through a temporary file in
// the same directory, renamed over it, keeping its mode.
func writeFile(name string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(name); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, mode)
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
