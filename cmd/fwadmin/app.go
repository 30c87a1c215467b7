package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Global flag names; each is also FWADMIN_<NAME> (dashes as underscores)
// and a key of the config file.
const (
	flagAdminURL      = "admin-url"
	flagAuthToken     = "auth-token"
	flagAuthTokenFile = "auth-token-file"
	flagTLSTrustCert  = "tls-trust-cert-path"
	flagTLSInsecure   = "tls-allow-insecure"
	flagTLSCertFile   = "tls-cert-file"
	flagTLSKeyFile    = "tls-key-file"
	flagVerbose       = "verbose"
	flagConfig        = "config"

	defaultAdminURL = "http://localhost:6750"
	envPrefix       = "FWADMIN"
)

// settings are the resolved global options.
type settings struct {
	AdminURL         string
	AuthToken        string
	AuthTokenFile    string
	TLSTrustCertPath string
	TLSAllowInsecure bool
	TLSCertFile      string
	TLSKeyFile       string
	Verbose          bool
	// ConfigFile is the file that was read, "" if none.
	ConfigFile string
}

// app is what every command shares: output streams, settings and the
// clients built from them.
type app struct {
	stdout, stderr io.Writer
	cfg            settings
	clients        *clients
}

func (a *app) addFlags(fl *pflag.FlagSet) {
	fl.String(flagAdminURL, defaultAdminURL, "worker REST URL (any worker: leader-only calls are redirected)")
	fl.String(flagAuthToken, "", "authentication token (Authorization: Bearer)")
	fl.String(flagAuthTokenFile, "", "file holding the authentication token")
	fl.String(flagTLSTrustCert, "", "CA certificate file (PEM) to trust for https")
	fl.Bool(flagTLSInsecure, false, "accept any server certificate (testing only)")
	fl.String(flagTLSCertFile, "", "client certificate file for TLS authentication")
	fl.String(flagTLSKeyFile, "", "client key file for TLS authentication")
	fl.BoolP(flagVerbose, "v", false, "log every HTTP request and response status (redirects too) to stderr")
	fl.String(flagConfig, "", "YAML config file (default ~/.config/fwadmin/config.yaml if present; env FWADMIN_CONFIG)")
}

// load resolves the settings: flag, then environment, then config file,
// then default.
func (a *app) load(cmd *cobra.Command) error {
	v := viper.New()
	v.SetEnvPrefix(envPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	if err := v.BindPFlags(cmd.Root().PersistentFlags()); err != nil {
		return err
	}
	file, explicit := v.GetString(flagConfig), true
	if file == "" {
		file, explicit = defaultConfigFile(), false
	}
	if file != "" {
		v.SetConfigFile(file)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			if explicit || !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("config file %s: %w", file, err)
			}
			file = ""
		}
	}
	a.cfg = settings{
		AdminURL:         strings.TrimRight(v.GetString(flagAdminURL), "/"),
		AuthToken:        v.GetString(flagAuthToken),
		AuthTokenFile:    v.GetString(flagAuthTokenFile),
		TLSTrustCertPath: v.GetString(flagTLSTrustCert),
		TLSAllowInsecure: v.GetBool(flagTLSInsecure),
		TLSCertFile:      v.GetString(flagTLSCertFile),
		TLSKeyFile:       v.GetString(flagTLSKeyFile),
		Verbose:          v.GetBool(flagVerbose),
		ConfigFile:       file,
	}
	if a.cfg.AdminURL == "" {
		a.cfg.AdminURL = defaultAdminURL
	}
	if a.cfg.Verbose && file != "" {
		fmt.Fprintf(a.stderr, "* config file %s\n", file)
	}
	return nil
}

// defaultConfigFile is <user config dir>/fwadmin/config.yaml, which is
// ~/.config/fwadmin/config.yaml unless XDG_CONFIG_HOME says otherwise.
func defaultConfigFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "fwadmin", "config.yaml")
}
