/// The version of this package, said once: `PhotoPreparer.packageVersion` and
/// `Outbox.packageVersion` give it to an app, and `prep-photo --version` and `outbox --version`
/// print it. `VersionTests` holds it to the newest release in CHANGELOG.md, so a release changes
/// both together.
///
/// A target of its own because the two libraries report it and Outbox must not depend on
/// ImagePrep; the platform layer, which both use, is for the calls that differ between systems.
package enum PackageVersion {
    /// Semantic versioning (https://semver.org): below 1.0.0 a minor release may break its
    /// users, and CHANGELOG.md lists each break under "Breaking" with what to do about it.
    package static let current = "0.2.0"
}
