/// What to do with copies that are already there when a photo is prepared.
enum ExistingCopies: Sendable {
    /// Fail the photo (`output_exists`), replacing nothing: the default, so that two inputs of
    /// one name never silently replace each other across runs.
    case refuse
    /// `--skip-existing`: keep a photo whose copies are all there and newer than it; prepare
    /// again, replacing its copies, a photo whose set is partial or older.
    case skipFinished
    /// `--overwrite`: replace them.
    case replace
}
