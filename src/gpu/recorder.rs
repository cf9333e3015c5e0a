//! The command buffers of one call, recorded in order and submitted together.

/// Command buffers of one call, recorded in order and submitted together.
pub(crate) struct Recorder<'a> {
    device: &'a wgpu::Device,
    queue: &'a wgpu::Queue,
    pub encoder: wgpu::CommandEncoder,
    finished: Vec<wgpu::CommandBuffer>,
}

impl<'a> Recorder<'a> {
    pub fn new(device: &'a wgpu::Device, queue: &'a wgpu::Queue) -> Recorder<'a> {
        Recorder {
            device,
            queue,
            encoder: device.create_command_encoder(&Default::default()),
            finished: Vec::new(),
        }
    }

    /// Ends the current command buffer and starts the next.
    pub fn split(&mut self) {
        let next = self.device.create_command_encoder(&Default::default());
        let done = std::mem::replace(&mut self.encoder, next);
        self.finished.push(done.finish());
    }

    /// Submits everything recorded.
    pub fn submit(mut self) {
        self.finished.push(self.encoder.finish());
        self.queue.submit(self.finished);
    }
}
