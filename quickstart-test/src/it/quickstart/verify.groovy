// A build with no test at all passes too: check that the quick start's test ran, and passed.
def report = new File(basedir, 'target/surefire-reports/TEST-com.example.shipping.ShippingServiceTests.xml')
assert report.isFile() : "no surefire report at ${report}: the quick start's test did not run"
def suite = (report.text =~ /<testsuite [^>]*/)[0]
def count = { String name -> ((suite =~ /\b${name}="(\d+)"/)[0][1]) as int }
assert count('tests') == 1 : "expected 1 test: ${suite}"
assert count('failures') == 0 && count('errors') == 0 && count('skipped') == 0 : suite
// distlock was resolved from the artifacts this build installed, through the BOM
def installed = new File(localRepositoryPath, 'dev/distlock/lock-starter/' + projectVersion)
assert installed.isDirectory() : "lock-starter ${projectVersion} was not installed into ${localRepositoryPath}"
return true
