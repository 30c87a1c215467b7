package main

import (
	"bufio"
	"io"
	"strings"
)

// lineReader reads lines ending in \n, \r\n or \r (the SSE line ends) of
// any length.
type lineReader struct {
	r       *bufio.Reader
	afterCR bool
}

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: bufio.NewReader(r)} }

func (l *lineReader) line() (string, error) {
	var sb strings.Builder
	for {
		b, err := l.r.ReadByte()
		if err != nil {
			if sb.Len() > 0 && err == io.EOF {
				return sb.String(), nil
			}
			return "", err
		}
		if l.afterCR {
			l.afterCR = false
			if b == '\n' {
				continue
			}
		}
		switch b {
		case '\n':
			return sb.String(), nil
		case '\r':
			l.afterCR = true
			return sb.String(), nil
		}
		sb.WriteByte(b)
	}
}
