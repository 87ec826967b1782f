//! Per-layer parameter tensors and forward multiply-accumulates of the five DL models of the
//! paper's Table 1, laid out as TF-slim variables (what a parameter server transfers). The
//! totals match the published parameter counts (LeNet-5 61,706; AlexNet 50,303,912 in its
//! TF-slim form; VGG16 138,357,544; checked by a test).
//!
//! Each layer records the layers it reads from, so Inception's branches and ResNet's shortcuts
//! form a real DAG rather than a chain.

/// One layer of a model.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Layer {
    /// TF-slim scope name.
    pub name: String,
    /// Parameter tensors `(variable name, number of elements)`.
    pub params: Vec<(String, u64)>,
    /// Forward multiply-accumulates per image.
    pub macs: u64,
    /// Indices of the layers whose output this layer reads (empty: the input image).
    pub inputs: Vec<usize>,
}

/// The models the paper evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Model {
    /// LeNet in its TF-slim form (28×28, conv 32 / conv 64 / fc 1024 / fc 10): 8 tensors.
    LeNet,
    /// The classic LeNet-5 (32×32, 6-16-120-84-10): 10 tensors, 61,706 parameters.
    LeNet5Classic,
    /// AlexNet-v2 (TF-slim, 224): 16 tensors.
    AlexNet,
    /// VGG16 (224): 32 tensors, 138,357,544 parameters.
    Vgg16,
    /// Inception-v3 (TF-slim, 299, no auxiliary head): 190 tensors.
    Inception,
    /// ResNet-152 v1 (TF-slim, 224, batch norm with γ and β): 467 tensors.
    ResNet152,
}

impl Model {
    /// The five models of the paper's mix, in its order.
    pub const PAPER: [Model; 5] = [
        Model::LeNet,
        Model::AlexNet,
        Model::Vgg16,
        Model::Inception,
        Model::ResNet152,
    ];

    /// Lower-case name (`lenet`, `alexnet`, `vgg16`, `inception`, `resnet152`, `lenet5`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Model::LeNet => "lenet",
            Model::LeNet5Classic => "lenet5",
            Model::AlexNet => "alexnet",
            Model::Vgg16 => "vgg16",
            Model::Inception => "inception",
            Model::ResNet152 => "resnet152",
        }
    }

    /// The layers of the model in creation (forward) order.
    ///
    /// # Complexity
    /// O(layers).
    #[must_use]
    pub fn layers(self) -> Vec<Layer> {
        match self {
            Model::LeNet => lenet_slim(),
            Model::LeNet5Classic => lenet5_classic(),
            Model::AlexNet => alexnet_v2(),
            Model::Vgg16 => vgg16(),
            Model::Inception => inception_v3(),
            Model::ResNet152 => resnet_v1_152(),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pad {
    Same,
    Valid,
}

#[derive(Clone, Copy)]
enum Bn {
    None,
    Beta,
    GammaBeta,
}

/// A feature map: shape and the layers producing it.
#[derive(Clone)]
struct T {
    h: u64,
    w: u64,
    c: u64,
    from: Vec<usize>,
}

fn out_dim(h: u64, k: u64, s: u64, pad: Pad) -> u64 {
    match pad {
        Pad::Same => h.div_ceil(s),
        Pad::Valid => (h - k) / s + 1,
    }
}

struct Net {
    layers: Vec<Layer>,
}

impl Net {
    fn new() -> Self {
        Self { layers: Vec::new() }
    }

    #[allow(clippy::too_many_arguments)]
    fn conv(
        &mut self,
        x: &T,
        name: &str,
        cout: u64,
        kh: u64,
        kw: u64,
        s: u64,
        pad: Pad,
        bn: Bn,
    ) -> T {
        let (ho, wo) = (out_dim(x.h, kh, s, pad), out_dim(x.w, kw, s, pad));
        let wn = kh * kw * x.c * cout;
        let mut params = vec![(format!("{name}/weights"), wn)];
        match bn {
            Bn::Beta => params.push((format!("{name}/BatchNorm/beta"), cout)),
            Bn::GammaBeta => {
                params.push((format!("{name}/BatchNorm/gamma"), cout));
                params.push((format!("{name}/BatchNorm/beta"), cout));
            }
            Bn::None => params.push((format!("{name}/biases"), cout)),
        }
        self.layers.push(Layer {
            name: name.to_owned(),
            params,
            macs: wn * ho * wo,
            inputs: x.from.clone(),
        });
        T {
            h: ho,
            w: wo,
            c: cout,
            from: vec![self.layers.len() - 1],
        }
    }

    fn fc(&mut self, x: &T, name: &str, cout: u64) -> T {
        let cin = x.h * x.w * x.c;
        self.layers.push(Layer {
            name: name.to_owned(),
            params: vec![
                (format!("{name}/weights"), cin * cout),
                (format!("{name}/biases"), cout),
            ],
            macs: cin * cout,
            inputs: x.from.clone(),
        });
        T {
            h: 1,
            w: 1,
            c: cout,
            from: vec![self.layers.len() - 1],
        }
    }
}

fn pool(x: &T, k: u64, s: u64, pad: Pad) -> T {
    T {
        h: out_dim(x.h, k, s, pad),
        w: out_dim(x.w, k, s, pad),
        ..x.clone()
    }
}

fn concat(parts: &[&T]) -> T {
    let mut from: Vec<usize> = parts.iter().flat_map(|t| t.from.iter().copied()).collect();
    from.sort_unstable();
    from.dedup();
    T {
        h: parts[0].h,
        w: parts[0].w,
        c: parts.iter().map(|t| t.c).sum(),
        from,
    }
}

fn input(h: u64, c: u64) -> T {
    T {
        h,
        w: h,
        c,
        from: Vec::new(),
    }
}

fn lenet5_classic() -> Vec<Layer> {
    let mut n = Net::new();
    let x = input(32, 1);
    let x = n.conv(&x, "conv1", 6, 5, 5, 1, Pad::Valid, Bn::None);
    let x = pool(&x, 2, 2, Pad::Valid);
    let x = n.conv(&x, "conv2", 16, 5, 5, 1, Pad::Valid, Bn::None);
    let x = pool(&x, 2, 2, Pad::Valid);
    let x = n.fc(&x, "fc3", 120);
    let x = n.fc(&x, "fc4", 84);
    n.fc(&x, "fc5", 10);
    n.layers
}

fn lenet_slim() -> Vec<Layer> {
    let mut n = Net::new();
    let x = input(28, 1);
    let x = n.conv(&x, "conv1", 32, 5, 5, 1, Pad::Same, Bn::None);
    let x = pool(&x, 2, 2, Pad::Valid);
    let x = n.conv(&x, "conv2", 64, 5, 5, 1, Pad::Same, Bn::None);
    let x = pool(&x, 2, 2, Pad::Valid);
    let x = n.fc(&x, "fc3", 1024);
    n.fc(&x, "fc4", 10);
    n.layers
}

fn alexnet_v2() -> Vec<Layer> {
    let mut n = Net::new();
    let x = input(224, 3);
    let x = n.conv(&x, "conv1", 64, 11, 11, 4, Pad::Valid, Bn::None);
    let x = pool(&x, 3, 2, Pad::Valid);
    let x = n.conv(&x, "conv2", 192, 5, 5, 1, Pad::Same, Bn::None);
    let x = pool(&x, 3, 2, Pad::Valid);
    let x = n.conv(&x, "conv3", 384, 3, 3, 1, Pad::Same, Bn::None);
    let x = n.conv(&x, "conv4", 384, 3, 3, 1, Pad::Same, Bn::None);
    let x = n.conv(&x, "conv5", 256, 3, 3, 1, Pad::Same, Bn::None);
    let x = pool(&x, 3, 2, Pad::Valid);
    let x = n.conv(&x, "fc6", 4096, 5, 5, 1, Pad::Valid, Bn::None);
    let x = n.conv(&x, "fc7", 4096, 1, 1, 1, Pad::Same, Bn::None);
    n.conv(&x, "fc8", 1000, 1, 1, 1, Pad::Same, Bn::None);
    n.layers
}

fn vgg16() -> Vec<Layer> {
    let mut n = Net::new();
    let mut x = input(224, 3);
    for (b, reps, c) in [
        (1, 2, 64),
        (2, 2, 128),
        (3, 3, 256),
        (4, 3, 512),
        (5, 3, 512),
    ] {
        for i in 0..reps {
            x = n.conv(
                &x,
                &format!("conv{b}/conv{b}_{}", i + 1),
                c,
                3,
                3,
                1,
                Pad::Same,
                Bn::None,
            );
        }
        x = pool(&x, 2, 2, Pad::Valid);
    }
    let x = n.conv(&x, "fc6", 4096, 7, 7, 1, Pad::Valid, Bn::None);
    let x = n.conv(&x, "fc7", 4096, 1, 1, 1, Pad::Same, Bn::None);
    n.conv(&x, "fc8", 1000, 1, 1, 1, Pad::Same, Bn::None);
    n.layers
}

fn inception_v3() -> Vec<Layer> {
    let mut n = Net::new();
    let b = Bn::Beta;
    let (s, v) = (Pad::Same, Pad::Valid);
    let x = input(299, 3);
    let x = n.conv(&x, "Conv2d_1a_3x3", 32, 3, 3, 2, v, b);
    let x = n.conv(&x, "Conv2d_2a_3x3", 32, 3, 3, 1, v, b);
    let x = n.conv(&x, "Conv2d_2b_3x3", 64, 3, 3, 1, s, b);
    let x = pool(&x, 3, 2, v);
    let x = n.conv(&x, "Conv2d_3b_1x1", 80, 1, 1, 1, v, b);
    let x = n.conv(&x, "Conv2d_4a_3x3", 192, 3, 3, 1, v, b);
    let mut x = pool(&x, 3, 2, v);
    for (name, pool_c, b1) in [
        ("Mixed_5b", 32, ["Conv2d_0a_1x1", "Conv2d_0b_5x5"]),
        ("Mixed_5c", 64, ["Conv2d_0b_1x1", "Conv_1_0c_5x5"]),
        ("Mixed_5d", 64, ["Conv2d_0a_1x1", "Conv2d_0b_5x5"]),
    ] {
        let o0 = n.conv(
            &x,
            &format!("{name}/Branch_0/Conv2d_0a_1x1"),
            64,
            1,
            1,
            1,
            s,
            b,
        );
        let t = n.conv(&x, &format!("{name}/Branch_1/{}", b1[0]), 48, 1, 1, 1, s, b);
        let o1 = n.conv(&t, &format!("{name}/Branch_1/{}", b1[1]), 64, 5, 5, 1, s, b);
        let t = n.conv(
            &x,
            &format!("{name}/Branch_2/Conv2d_0a_1x1"),
            64,
            1,
            1,
            1,
            s,
            b,
        );
        let t = n.conv(
            &t,
            &format!("{name}/Branch_2/Conv2d_0b_3x3"),
            96,
            3,
            3,
            1,
            s,
            b,
        );
        let o2 = n.conv(
            &t,
            &format!("{name}/Branch_2/Conv2d_0c_3x3"),
            96,
            3,
            3,
            1,
            s,
            b,
        );
        let o3 = n.conv(
            &x,
            &format!("{name}/Branch_3/Conv2d_0b_1x1"),
            pool_c,
            1,
            1,
            1,
            s,
            b,
        );
        x = concat(&[&o0, &o1, &o2, &o3]);
    }
    let o0 = n.conv(&x, "Mixed_6a/Branch_0/Conv2d_1a_1x1", 384, 3, 3, 2, v, b);
    let t = n.conv(&x, "Mixed_6a/Branch_1/Conv2d_0a_1x1", 64, 1, 1, 1, s, b);
    let t = n.conv(&t, "Mixed_6a/Branch_1/Conv2d_0b_3x3", 96, 3, 3, 1, s, b);
    let o1 = n.conv(&t, "Mixed_6a/Branch_1/Conv2d_1a_1x1", 96, 3, 3, 2, v, b);
    let o2 = pool(&x, 3, 2, v);
    let mut x = concat(&[&o0, &o1, &o2]);
    for (name, m) in [
        ("Mixed_6b", 128),
        ("Mixed_6c", 160),
        ("Mixed_6d", 160),
        ("Mixed_6e", 192),
    ] {
        let o0 = n.conv(
            &x,
            &format!("{name}/Branch_0/Conv2d_0a_1x1"),
            192,
            1,
            1,
            1,
            s,
            b,
        );
        let t = n.conv(
            &x,
            &format!("{name}/Branch_1/Conv2d_0a_1x1"),
            m,
            1,
            1,
            1,
            s,
            b,
        );
        let t = n.conv(
            &t,
            &format!("{name}/Branch_1/Conv2d_0b_1x7"),
            m,
            1,
            7,
            1,
            s,
            b,
        );
        let o1 = n.conv(
            &t,
            &format!("{name}/Branch_1/Conv2d_0c_7x1"),
            192,
            7,
            1,
            1,
            s,
            b,
        );
        let t = n.conv(
            &x,
            &format!("{name}/Branch_2/Conv2d_0a_1x1"),
            m,
            1,
            1,
            1,
            s,
            b,
        );
        let t = n.conv(
            &t,
            &format!("{name}/Branch_2/Conv2d_0b_7x1"),
            m,
            7,
            1,
            1,
            s,
            b,
        );
        let t = n.conv(
            &t,
            &format!("{name}/Branch_2/Conv2d_0c_1x7"),
            m,
            1,
            7,
            1,
            s,
            b,
        );
        let t = n.conv(
            &t,
            &format!("{name}/Branch_2/Conv2d_0d_7x1"),
            m,
            7,
            1,
            1,
            s,
            b,
        );
        let o2 = n.conv(
            &t,
            &format!("{name}/Branch_2/Conv2d_0e_1x7"),
            192,
            1,
            7,
            1,
            s,
            b,
        );
        let o3 = n.conv(
            &x,
            &format!("{name}/Branch_3/Conv2d_0b_1x1"),
            192,
            1,
            1,
            1,
            s,
            b,
        );
        x = concat(&[&o0, &o1, &o2, &o3]);
    }
    let t = n.conv(&x, "Mixed_7a/Branch_0/Conv2d_0a_1x1", 192, 1, 1, 1, s, b);
    let o0 = n.conv(&t, "Mixed_7a/Branch_0/Conv2d_1a_3x3", 320, 3, 3, 2, v, b);
    let t = n.conv(&x, "Mixed_7a/Branch_1/Conv2d_0a_1x1", 192, 1, 1, 1, s, b);
    let t = n.conv(&t, "Mixed_7a/Branch_1/Conv2d_0b_1x7", 192, 1, 7, 1, s, b);
    let t = n.conv(&t, "Mixed_7a/Branch_1/Conv2d_0c_7x1", 192, 7, 1, 1, s, b);
    let o1 = n.conv(&t, "Mixed_7a/Branch_1/Conv2d_1a_3x3", 192, 3, 3, 2, v, b);
    let o2 = pool(&x, 3, 2, v);
    let mut x = concat(&[&o0, &o1, &o2]);
    for (name, b1b) in [("Mixed_7b", "Conv2d_0b_3x1"), ("Mixed_7c", "Conv2d_0c_3x1")] {
        let o0 = n.conv(
            &x,
            &format!("{name}/Branch_0/Conv2d_0a_1x1"),
            320,
            1,
            1,
            1,
            s,
            b,
        );
        let t = n.conv(
            &x,
            &format!("{name}/Branch_1/Conv2d_0a_1x1"),
            384,
            1,
            1,
            1,
            s,
            b,
        );
        let o1a = n.conv(
            &t,
            &format!("{name}/Branch_1/Conv2d_0b_1x3"),
            384,
            1,
            3,
            1,
            s,
            b,
        );
        let o1b = n.conv(&t, &format!("{name}/Branch_1/{b1b}"), 384, 3, 1, 1, s, b);
        let t = n.conv(
            &x,
            &format!("{name}/Branch_2/Conv2d_0a_1x1"),
            448,
            1,
            1,
            1,
            s,
            b,
        );
        let t = n.conv(
            &t,
            &format!("{name}/Branch_2/Conv2d_0b_3x3"),
            384,
            3,
            3,
            1,
            s,
            b,
        );
        let o2a = n.conv(
            &t,
            &format!("{name}/Branch_2/Conv2d_0c_1x3"),
            384,
            1,
            3,
            1,
            s,
            b,
        );
        let o2b = n.conv(
            &t,
            &format!("{name}/Branch_2/Conv2d_0d_3x1"),
            384,
            3,
            1,
            1,
            s,
            b,
        );
        let o3 = n.conv(
            &x,
            &format!("{name}/Branch_3/Conv2d_0b_1x1"),
            192,
            1,
            1,
            1,
            s,
            b,
        );
        x = concat(&[&o0, &o1a, &o1b, &o2a, &o2b, &o3]);
    }
    let x = T {
        h: 1,
        w: 1,
        c: 2048,
        ..x
    };
    n.conv(&x, "Logits/Conv2d_1c_1x1", 1000, 1, 1, 1, s, Bn::None);
    n.layers
}

fn resnet_v1_152() -> Vec<Layer> {
    let mut n = Net::new();
    let bn = Bn::GammaBeta;
    let s = Pad::Same;
    let x = input(224, 3);
    let x = n.conv(&x, "conv1", 64, 7, 7, 2, s, bn);
    let mut x = pool(&x, 3, 2, s);
    for (bi, (units, base)) in [(3, 64), (8, 128), (36, 256), (3, 512)]
        .into_iter()
        .enumerate()
    {
        for u in 0..units {
            let stride = if u == units - 1 && bi < 3 { 2 } else { 1 };
            let pre = format!("block{}/unit_{}/bottleneck_v1", bi + 1, u + 1);
            let shortcut = if x.c == base * 4 {
                // Identity (subsampled when strided): the unit's output depends on x's producers.
                T {
                    h: out_dim(x.h, 1, stride, s),
                    w: out_dim(x.w, 1, stride, s),
                    ..x.clone()
                }
            } else {
                n.conv(
                    &x,
                    &format!("{pre}/shortcut"),
                    base * 4,
                    1,
                    1,
                    stride,
                    s,
                    bn,
                )
            };
            let t = n.conv(&x, &format!("{pre}/conv1"), base, 1, 1, 1, s, bn);
            let t = n.conv(&t, &format!("{pre}/conv2"), base, 3, 3, stride, s, bn);
            let t = n.conv(&t, &format!("{pre}/conv3"), base * 4, 1, 1, 1, s, bn);
            let mut from = t.from.clone();
            from.extend(shortcut.from.iter().copied());
            from.sort_unstable();
            from.dedup();
            x = T { from, ..t };
        }
    }
    let x = T {
        h: 1,
        w: 1,
        c: 2048,
        ..x
    };
    n.conv(&x, "logits", 1000, 1, 1, 1, s, Bn::None);
    n.layers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(m: Model) -> (usize, usize, u64, u64) {
        let l = m.layers();
        let tensors = l.iter().map(|x| x.params.len()).sum();
        let params = l.iter().flat_map(|x| x.params.iter().map(|p| p.1)).sum();
        let macs = l.iter().map(|x| x.macs).sum();
        (l.len(), tensors, params, macs)
    }

    #[test]
    fn published_parameter_counts() {
        // The published totals (Keras and torchvision model summaries).
        assert_eq!(totals(Model::LeNet5Classic).0, 5);
        assert_eq!(totals(Model::LeNet5Classic).2, 61_706);
        assert_eq!(totals(Model::LeNet5Classic).1, 10);
        assert_eq!(totals(Model::LeNet).1, 8);
        assert_eq!(totals(Model::LeNet).2, 3_274_634);
        assert_eq!(totals(Model::AlexNet).1, 16);
        assert_eq!(totals(Model::AlexNet).2, 50_303_912);
        assert_eq!(
            totals(Model::Vgg16),
            (16, 32, 138_357_544, totals(Model::Vgg16).3)
        );
        assert_eq!(totals(Model::Inception).0, 95);
        assert_eq!(totals(Model::Inception).1, 190);
        assert_eq!(totals(Model::Inception).2, 23_817_352);
        assert_eq!(totals(Model::ResNet152).0, 156);
        assert_eq!(totals(Model::ResNet152).1, 467);
        assert_eq!(totals(Model::ResNet152).2, 60_192_808);
    }

    #[test]
    fn forward_macs() {
        // VGG16 conv1_2: 224²·3·3·64·64 = 1,849,688,064; total 15.47 GMACs.
        let v = Model::Vgg16.layers();
        assert_eq!(v[1].macs, 1_849_688_064);
        assert_eq!(totals(Model::Vgg16).3 / 10_000_000, 1547);
        // LeNet-5 conv1: 28²·5·5·6 = 117,600.
        assert_eq!(Model::LeNet5Classic.layers()[0].macs, 117_600);
    }

    #[test]
    fn branches_form_a_dag() {
        let l = Model::Inception.layers();
        // Every input precedes its reader, and the Mixed_5b branches all read the same layer.
        for (i, layer) in l.iter().enumerate() {
            assert!(layer.inputs.iter().all(|&j| j < i), "{}", layer.name);
        }
        let b0 = l
            .iter()
            .position(|x| x.name == "Mixed_5b/Branch_0/Conv2d_0a_1x1")
            .unwrap();
        let b3 = l
            .iter()
            .position(|x| x.name == "Mixed_5b/Branch_3/Conv2d_0b_1x1")
            .unwrap();
        assert_eq!(l[b0].inputs, l[b3].inputs);
        // Mixed_5c's first conv reads the four branch outputs of Mixed_5b.
        let c0 = l
            .iter()
            .position(|x| x.name == "Mixed_5c/Branch_0/Conv2d_0a_1x1")
            .unwrap();
        assert_eq!(l[c0].inputs.len(), 4);
        let r = Model::ResNet152.layers();
        let u2 = r
            .iter()
            .position(|x| x.name == "block1/unit_2/bottleneck_v1/conv1")
            .unwrap();
        // Unit 2 reads unit 1's conv3 and its projection shortcut.
        assert_eq!(r[u2].inputs.len(), 2);
    }
}
