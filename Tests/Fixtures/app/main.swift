import Foundation

// view-model-app ENGINE-URL OUTBOX-FOLDER CAMERA-JPEG: what a capture screen does, from the main
// actor, printed line by line for the test to read.
let arguments = CommandLine.arguments
guard arguments.count == 4, let engineURL = URL(string: arguments[1]) else {
    print("usage: view-model-app ENGINE-URL OUTBOX-FOLDER CAMERA-JPEG")
    exit(2)
}
let cameraBytes = try Data(contentsOf: URL(fileURLWithPath: arguments[3]))

let model = try await CaptureViewModel.open(folder: URL(fileURLWithPath: arguments[2]))
model.draft = "gate left open"
let edit = try await model.saveDraft(as: 42)
print("notes:", try await model.notes().joined(separator: ", "))
let first = try await model.capture(cameraBytes: cameraBytes)
let second = try await model.capture(cameraBytes: cameraBytes)
try await model.send(to: engineURL, until: [edit, first, second])
print("retired:", model.retired.count)
print("snapshot items:", model.snapshot?.items.count ?? -1)
print("ids:", edit, first, second)
