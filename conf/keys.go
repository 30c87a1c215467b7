package conf

import (
	"reflect"
	"strings"
	"unicode"
)

// EnvPrefix starts every environment variable conf reads.
const EnvPrefix = "FWORKER_"

// key is one Config field and the names it goes by.
type key struct {
	name  string // as tagged, e.g. "workerPort"
	field int    // index in Config
	envs  [2]string
}

// keys lists Config's fields in declaration order. The mapstructure tags
// are the single source of the names.
var keys = func() []key {
	t := reflect.TypeFor[Config]()
	ks := make([]key, 0, t.NumField())
	for i := range t.NumField() {
		name := t.Field(i).Tag.Get("mapstructure")
		ks = append(ks, key{name: name, field: i, envs: envNames(name)})
	}
	return ks
}()

// envNames returns FWORKER_<UPPER> and FWORKER_<UPPER_SNAKE> for a key.
func envNames(name string) [2]string {
	var snake strings.Builder
	for i, r := range name {
		if i > 0 && unicode.IsUpper(r) {
			snake.WriteByte('_')
		}
		snake.WriteRune(unicode.ToUpper(r))
	}
	return [2]string{EnvPrefix + strings.ToUpper(name), EnvPrefix + snake.String()}
}

// kebab turns "workerPortTls" into "worker-port-tls" (flag names).
func kebab(name string) string {
	var b strings.Builder
	for i, r := range name {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// pulsarIgnoredKeys are the keys of Pulsar's functions_worker.yml and
// WorkerConfig that fworker accepts and does not use. A file that sets them
// loads without a warning. Sources: conf/functions_worker.yml@005cbf1e and
// WorkerConfig@012c726b (see the reference doc, section 5).
var pulsarIgnoredKeys = []string{
	// worker, web server, metadata store
	"webServiceHaProxyProtocolEnabled", "webServiceTrustXForwardedFor",
	"webServiceLogDetailedAddresses", "numHttpServerThreads", "functionWebServiceUrl",
	"configurationMetadataStoreUrl", "metadataStoreSessionTimeoutMillis",
	"metadataStoreOperationTimeoutSeconds", "metadataStoreCacheExpirySeconds",
	"configurationStoreServers", "zooKeeperSessionTimeoutMillis",
	"zooKeeperOperationTimeoutSeconds", "zooKeeperCacheExpirySeconds",
	"zookeeperAllowReadOnlyOperations", "initializedDlogMetadata",
	"authenticateMetricsEndpoint", "includeStandardPrometheusMetrics",
	"jvmGCMetricsLoggerClassName", "functionsWorkerServiceNarPackage",
	"functionsWorkerServiceCustomConfigs", "exposeAdminClientEnabled", "properties",
	// packages, connectors, functions
	"numFunctionPackageReplicas", "downloadDirectory", "functionsWorkerEnablePackageManagement",
	"enableClassloadingOfBuiltinFiles", "enableClassloadingOfExternalFiles",
	"connectorsDirectory", "narExtractionDirectory", "validateConnectorConfig",
	"functionsDirectory", "enableReferencingConnectorDirectoryFiles",
	"additionalEnabledConnectorUrlPatterns", "enableReferencingFunctionsDirectoryFiles",
	"additionalEnabledFunctionsUrlPatterns", "ignoreUnknownConfigFields",
	"uploadBuiltinSinksSources",
	// metadata and scheduling
	"useCompactedMetadataTopic", "assignmentWriteMaxRetries", "instanceLivenessCheckFreqMs",
	// runtime
	"functionRuntimeFactoryClassName", "functionRuntimeFactoryConfigs",
	"additionalJavaRuntimeArguments", "secretsProviderConfiguratorClassName",
	"secretsProviderConfiguratorConfig", "functionInstanceMinResources",
	"functionInstanceMaxResources", "functionInstanceResourceGranularities",
	"functionInstanceResourceChangeInLockStep", "functionAuthProviderClassName",
	"runtimeCustomizerClassName", "runtimeCustomizerConfig", "configAdminCLI",
	"maxPendingAsyncRequests", "forwardSourceMessageProperty",
	"threadContainerFactory", "processContainerFactory", "kubernetesContainerFactory",
	"stateStorageServiceUrl", "stateStorageProviderImplementation",
	// security
	"authorizationProvider", "proxyRoles", "useTls",
	"brokerClientTrustCertsFilePath", "brokerClientAuthenticationEnabled",
	"clientAuthenticationPlugin", "clientAuthenticationParameters",
	"bookkeeperClientAuthenticationPlugin", "bookkeeperClientAuthenticationParametersName",
	"bookkeeperClientAuthenticationParameters",
	"tlsRequireTrustedClientCertOnConnect", "tlsCertRefreshCheckDurationSec",
	"tlsFactoryClassName", "tlsFactoryConfig", "brokerClientTlsFactoryClassName",
	"brokerClientTlsFactoryConfig", "tlsProvider", "jsseProvider",
	"tlsEnabledWithKeyStore", "tlsKeyStoreType", "tlsKeyStore", "tlsKeyStorePassword",
	"tlsTrustStoreType", "tlsTrustStore", "tlsTrustStorePassword",
	"webServiceTlsProtocols", "webServiceTlsCiphers",
	"saslJaasClientAllowedIds", "saslJaasServerSectionName",
	"saslJaasServerRoleTokenSignerSecretPath",
}

// nameInfo is the canonical spelling of a recognised key and whether
// fworker uses it (a Config key) or ignores it (a pulsarIgnoredKeys entry).
type nameInfo struct {
	canonical string
	used      bool
}

// names maps lower-cased key names to nameInfo.
var names = func() map[string]nameInfo {
	m := map[string]nameInfo{}
	for _, k := range keys {
		m[strings.ToLower(k.name)] = nameInfo{k.name, true}
	}
	for _, n := range pulsarIgnoredKeys {
		m[strings.ToLower(n)] = nameInfo{n, false}
	}
	return m
}()

// knownEnv holds every environment name conf recognises.
var knownEnv = func() map[string]bool {
	m := map[string]bool{EnvPrefix + "CONFIG": true}
	for _, info := range names {
		for _, e := range envNames(info.canonical) {
			m[e] = true
		}
	}
	return m
}()
