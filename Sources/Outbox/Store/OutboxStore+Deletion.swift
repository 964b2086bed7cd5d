import Foundation

/// Deleting a record, and handing the upload resources it kept to those to give back.
extension OutboxStore {
    /// Deletes the record with this id; the upload resources it kept go to those to give back.
    ///
    /// - Returns: whether there was one.
    @discardableResult
    func deleteRecord(id: String) throws(OutboxError) -> Bool {
        try database.transaction { () throws(OutboxError) -> Bool in
            try abandonUploadResources(where: "id = ?", [.text(id)])
            try database.run("DELETE FROM \(Self.table) WHERE id = ?", .text(id))
            return database.changes > 0
        }
    }

    /// Deletes the record at this place in the queue, whatever its id column holds; the upload
    /// resources it kept go to those to give back.
    ///
    /// - Returns: whether there was one.
    func deleteRecord(sequence: Int64) throws(OutboxError) -> Bool {
        try database.transaction { () throws(OutboxError) -> Bool in
            try abandonUploadResources(where: "sequence = ?", [.integer(sequence)])
            try database.run("DELETE FROM \(Self.table) WHERE sequence = ?", .integer(sequence))
            return database.changes > 0
        }
    }
}
