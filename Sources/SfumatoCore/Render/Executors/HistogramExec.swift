import Foundation

/// Per-channel counts of its inputs, then a fused point pass over the first input.
final class _HistogramExec: _PointExec, @unchecked Sendable {
    let mapping: any HistogramMapping
    let inputs: [_Exec]
    let workingSpace: WorkingSpace

    init(_ inputs: [_Exec], _ mapping: any HistogramMapping, extent: Rect, ws: WorkingSpace) {
        self.mapping = mapping
        self.inputs = inputs
        self.workingSpace = ws
        super.init(inputs[0], program: _PointProgram(), extent: extent, ws: ws, children: inputs)
    }

    override var explanation: String {
        "\(mapping.name): count \(mapping.bins) bins per channel over \(inputs.count) input(s) first, then " + super.explanation
    }

    /// Installs the stages computed from the histograms.
    func install(_ histograms: [Histogram]) {
        program = _PointProgram(stages: mapping.stages(for: histograms), name: mapping.name)
        prepareTable(workingSpace)
    }
}
