package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/domain/license"
)

func newLicenseCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "license", Short: "Make signing keys and license tokens for self-hosted installs"}
	cmd.AddCommand(newKeygenCmd(), newIssueCmd())
	return cmd
}

type keyPairJSON struct {
	PublicKey  string `json:"public_key"`
	PrivateKey string `json:"private_key"`
}

func newKeygenCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "keygen",
		Short: "Print a new Ed25519 key pair (base64): the public key for TABNORM_LICENSE_PUBLIC_KEY, the private key to sign licenses",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pub, priv, err := ed25519.GenerateKey(rand.Reader)
			if err != nil {
				return err
			}
			pair := keyPairJSON{PublicKey: base64.StdEncoding.EncodeToString(pub), PrivateKey: base64.StdEncoding.EncodeToString(priv.Seed())}
			return printRecord(cmd, asJSON, pair, fmt.Sprintf("public key:  %s\nprivate key: %s\nKeep the private key secret; it signs licenses.", pair.PublicKey, pair.PrivateKey))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the key pair as JSON")
	return cmd
}

type licenseJSON struct {
	Token     string   `json:"token"`
	Licensee  string   `json:"licensee"`
	ExpiresAt string   `json:"expires_at"`
	Products  []string `json:"products"`
}

func newIssueCmd() *cobra.Command {
	var privateKey, licensee, expiresAt, products string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "issue --private-key KEY --licensee NAME --expires-at 2027-12-31T00:00:00Z --products normalize,connect",
		Short: "Print a signed license token",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			priv, err := readPrivateKey(privateKey)
			if err != nil {
				return usage(err)
			}
			exp, err := time.Parse(time.RFC3339, expiresAt)
			if err != nil {
				return usage(fmt.Errorf("--expires-at: want RFC 3339, like 2027-12-31T00:00:00Z"))
			}
			ps, err := identity.ParseProducts(products)
			if err != nil {
				return usage(err)
			}
			token, err := license.Issue(priv, license.License{Licensee: licensee, ExpiresAt: exp, Products: ps})
			if err != nil {
				return usage(err)
			}
			names := make([]string, len(ps))
			for i, p := range ps {
				names[i] = string(p)
			}
			return printRecord(cmd, asJSON, licenseJSON{Token: token, Licensee: licensee, ExpiresAt: exp.UTC().Format(time.RFC3339), Products: names}, token)
		},
	}
	cmd.Flags().StringVar(&privateKey, "private-key", "", "base64 private key from `license keygen`, or @file to read it from a file (required)")
	cmd.Flags().StringVar(&licensee, "licensee", "", "who the license is for (required)")
	cmd.Flags().StringVar(&expiresAt, "expires-at", "", "expiry, RFC 3339 (required)")
	cmd.Flags().StringVar(&products, "products", "normalize", "comma-separated products the license covers")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the license as JSON")
	for _, f := range []string{"private-key", "licensee", "expires-at"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

// readPrivateKey accepts the base64 seed (or full key) inline or as @file,
// so the key need not appear in shell history.
func readPrivateKey(s string) (ed25519.PrivateKey, error) {
	if path, ok := strings.CutPrefix(s, "@"); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--private-key: %w", err)
		}
		s = strings.TrimSpace(string(b))
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	switch {
	case err != nil:
	case len(raw) == ed25519.SeedSize:
		return ed25519.NewKeyFromSeed(raw), nil
	case len(raw) == ed25519.PrivateKeySize:
		return ed25519.PrivateKey(raw), nil
	}
	return nil, errors.New("--private-key: want the base64 private key printed by `tabnorm license keygen`")
}
