//go:build !race

package e2e

// fwadminRace: the test binary runs with -race, so fwadmin is built with it
// too.
const fwadminRace = false
