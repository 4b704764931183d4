#!/usr/bin/env python3
"""Deterministic synthetic corpus for benchmarking site-gen (and the same content for Hugo).

    python3 benchmarks/gen_corpus.py N --seed S --out DIR [--no-hugo] [--hugo-meta visible|full]

writes

* ``DIR/content/site.yaml`` and ``DIR/content/dumps/*.txt`` -- N distinct papers spread over
  listing dumps (one per profiled author, ``00[0-2]_<hex>.txt``) and co-author dumps (about a
  third of the profiled authors, ``003_<hex>.txt``), in the grammars of the seed dumps;
* ``DIR/hugo/`` -- the same papers as a Hugo site (``hugo.toml``, ``content/papers/*.md``,
  minimal ``layouts/``).

The same N and seed give byte-identical trees: one ``random.Random(seed)`` (``Rng``, a subclass
with a cheaper ``choice``) drives everything, nothing reads the clock or the environment, and
every collection is walked in a fixed order.
Standard library only.  See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import itertools
import json
import os
import random
import re
import shutil
import sys
import time
import unicodedata

# ---- knobs ------------------------------------------------------------------------------------

YEARS = list(range(2015, 2027))
YEAR_WEIGHTS = [3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 18, 20]  # more papers in recent years
SUBJECTS = ["cs.LG", "cs.CL", "cs.CV", "cs.DC", "cs.AI", "cs.IR", "cs.NE", "cs.RO", "stat.ML",
            "math.OC", "eess.SP", "q-bio.NC", "quant-ph", "cs.CR", "cs.SE"]
SUBJECT_WEIGHTS = [30, 12, 12, 8, 10, 4, 2, 3, 6, 3, 2, 1, 1, 3, 3]
SUBJECT_COUNTS, SUBJECT_COUNT_WEIGHTS = [1, 2, 3], [50, 35, 15]
AUTHOR_COUNTS = list(range(2, 13))
AUTHOR_COUNT_WEIGHTS = [10, 16, 18, 16, 12, 9, 6, 4, 3, 3, 3]  # mean ~5.3 authors per paper
ZIPF_S = 0.5            # author popularity ~ 1/rank**s; profiled authors hold ~35% of author slots
SHAPES = ("five-authors", "many-authors")
"""Corpus shapes (``--shape``). five-authors: 2-12 authors a paper (mean ~5.3), a pool of N/5
authors, co-author entries show the first three. many-authors, as machine learning's papers:
10-30 authors a paper, 3% of papers 100-300, a pool of 2.25 N authors (so the most popular
few hold 500+ papers at N=10,000), co-author entries show up to 100 names."""
MANY_AUTHORS = list(range(10, 31))
P_HUGE_LIST, HUGE_LIST = 0.03, (100, 300)
ABSTRACT_MIN, ABSTRACT_MAX = 700, 1900
P_LATEX = 0.30          # abstracts with LaTeX markup
P_CODE_URL = 0.10       # abstracts with a GitHub URL
P_AT_LEAST = 0.20       # listing dumps whose count line reads "At least <n> records"
P_COAUTHOR_DUMP = 1 / 3  # profiled authors who also get a co-author dump
P_UNLISTED = 0.10       # share of co-author dump entries that are in no listing dump
P_PERTURB = 0.75        # co-author entries whose abstract differs slightly from the listing's
OPENING_WORDS = 25      # site-gen flags abstracts whose first 25 folded words collide

# ---- names ------------------------------------------------------------------------------------

LATIN_FIRST = """
Wei Jiamang Zhenxuan Xinyi Haoran Yuxuan Zihan Mingyu Jiahui Yifan Xiaoyu Chen Jun Lei Tao Yang
Hao Jie Lin Min Qiang Rui Shuai Ting Xin Yu Zhe Zhiqi Hongzhan Jiashun Yancheng Dakai Pi Yingyao
Qingtao Zhengxiong Haoyu Boyang Ruoxi Siyuan Tianyi Wenjie Xuanhe Yiming Zhiyuan Kaiwen Jingyi
Aarav Priya Rohan Ananya Vikram Arjun Kavya Rahul Sneha Aditya Neha Karthik Deepa Sanjay Meera
Ishaan Lakshmi Nikhil Pooja Varun Hiroshi Yuki Takumi Haruto Sakura Kenji Ayumi Daisuke Minji
Jihoon Seoyeon Hyunwoo Jisoo Dongwook Omar Fatima Yusuf Layla Ahmed Amina Karim Nour Hassan
Chinedu Amara Kwame Ngozi Tendai Kofi Abena Sipho James Emma Oliver Sophia Lucas Mia Ethan Ava
Noah Isabella Liam Charlotte Benjamin Amelia Henry Harper Samuel Evelyn Daniel Abigail Michael
Emily Alexander Elizabeth David Sarah Matthew Grace Andrew Hannah Joseph Chloe Thomas Laura Peter
Anna Paul Julia Mark Rachel Stephen Maria Jonathan Elena Nicholas Katherine Christopher Olivia
Jean-Luc Marie-Claire Pierre Camille Antoine Julien Mathieu Claire Luca Giulia Matteo Francesca
Alessandro Chiara Marco Sofia Lars Ingrid Erik Astrid Nils Freya Jan Katarzyna Piotr Agnieszka
Tomasz Ivan Olga Sergei Natalia Mateo Valentina Diego Camila Santiago Lucia Gabriel Isabel Pedro
Beatriz Rafael Carmen Mehmet Elif Emre Zeynep Thanh Minh Linh Duc Arash Parisa Reza Shirin
Elad Noa Yael Avi Tamar
"""
LATIN_LAST = """
Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Xu Sun Ma Zhu Hu Guo He Gao Lin Luo Zheng Liang
Xie Song Tang Han Feng Deng Cao Peng Zeng Xiao Tian Dong Pan Yuan Cai Jiang Yu Du Ye Cheng Wei
Su Lu Ding Ren Shen Yao Jin Zong Que Bai Bu An Dai Fang Kong Qian Shi Tan Xue Yan Yin Zou
Sharma Patel Gupta Singh Kumar Reddy Iyer Nair Rao Mehta Chopra Banerjee Mukherjee Desai Joshi
Kapoor Menon Pillai Bhat Agarwal Tanaka Suzuki Takahashi Watanabe Ito Yamamoto Nakamura
Kobayashi Kato Yoshida Sato Kim Lee Park Choi Jung Kang Cho Yoon Jang Lim Hassan Ali Ahmed
Ibrahim Mansour Haddad Khalil Nasser Farouk Okafor Mensah Adeyemi Nwosu Boateng Moyo Dlamini
Smith Johnson Williams Brown Jones Miller Davis Wilson Anderson Taylor Thomas Moore Jackson
White Harris Martin Thompson Robinson Clark Lewis Walker Hall Allen Young King Wright Scott
Green Baker Adams Nelson Carter Mitchell Roberts Turner Phillips Campbell Parker Evans Edwards
Collins Stewart Morris Murphy Cook Rogers Morgan Cooper Peterson Reed Bailey Bell Kelly Howard
Ward Cox Richardson Wood Watson Brooks Bennett Gray Hughes Price Sanders Myers Long Ross Foster
O'Brien O'Connor McAllister MacDonald Dubois Lefebvre Moreau Laurent Rossi Russo Ferrari
Esposito Bianchi Romano Colombo Ricci Marino Greco Bruno Gallo Conti Schmidt Schneider Fischer
Weber Meyer Wagner Becker Hoffmann Koch Richter Klein Wolf Neumann Schwarz Zimmermann Braun
Hansen Johansen Larsen Andersen Nielsen Eriksson Lindqvist Nowak Kowalski Wisniewski Kaminski
Lewandowski Zielinski Petrov Volkov Sokolov Popescu Ionescu Horvath Novak Silva Santos Oliveira
Costa Pereira Almeida Ferreira Rocha Torres Flores Rivera Morales Ortiz Castillo Vargas Reyes
Cruz Yilmaz Kaya Demir Arslan Nguyen Tran Pham Hoang Vu Ahmadi Hosseini Karimi Rahimi Cohen
Levi Mizrahi Friedman Goldberg Katz
"""
LATIN_PARTICLES = ["van der", "de la", "van", "de", "von", "da", "di", "dos", "al", "ben"]
ACCENT_FIRST = ["José", "Zoë", "François", "Sébastien", "Jérôme", "Inès", "Léa", "Ángel", "Tomás", "Joël", "Søren", "Bjørn", "Łukasz", "Paweł", "Małgorzata", "Ólafur", "Raúl", "Sérgio", "João", "Adrián", "Björn", "Jürgen", "Günter", "Ömer", "Çağla", "Şebnem", "İlker", "Renée", "Chloé", "Héloïse", "Mónica", "Íñigo", "Andrés", "Dóra", "Zoltán", "Bálint", "Jiří", "Radek", "Władysław", "Hélène", "Aurélie"]
ACCENT_LAST = ["Núñez", "Müller", "García", "Pérez", "Ramírez", "Gómez", "Sánchez", "Jiménez", "Østergaard", "Håkansson", "Dvořák", "Šimić", "Čapek", "Özdemir", "Çelik", "Yılmaz", "Şahin", "Nguyễn", "Trần", "Lê", "Phạm", "Schäfer", "Köhler", "Böhm", "Weiß", "Fernández", "Rodríguez", "González", "Martín", "Hernández", "Álvarez", "Lindström", "Ångström", "Kovačević", "Wójcik", "Lévesque", "Bélanger", "Gagné", "Côté", "Nuñes", "Gößling", "Söderberg", "Kučera", "Dušek"]
ZH_SURNAME = list("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗")
ZH_GIVEN = ["小明", "伟", "芳", "娜", "秀英", "敏", "静", "丽", "强", "磊", "军", "洋", "勇", "艳",
            "杰", "涛", "明", "超", "秀兰", "霞", "平", "刚", "建华", "宇轩", "子涵", "浩然", "欣怡",
            "梓萱", "思远", "嘉怡"]
RU_MALE = ["Дмитрий", "Алексей", "Сергей", "Андрей", "Иван", "Михаил", "Николай", "Павел",
           "Артём", "Владимир", "Егор", "Максим"]
RU_FEMALE = ["Ольга", "Анна", "Мария", "Елена", "Наталья", "Татьяна", "Екатерина", "Ирина"]
RU_LAST = ["Иванов", "Смирнов", "Кузнецов", "Попов", "Васильев", "Петров", "Соколов",
           "Михайлов", "Новиков", "Фёдоров", "Морозов", "Волков", "Лебедев", "Козлов"]
JA_SURNAME = ["田中", "佐藤", "鈴木", "高橋", "渡辺", "伊藤", "山本", "中村", "小林", "加藤"]
JA_GIVEN = ["太郎", "花子", "健", "翔", "陽菜", "結衣", "大輔", "直樹", "由美", "拓海", "美咲"]
KO_SURNAME = list("김이박최정강조윤장임")
KO_GIVEN = ["민준", "서연", "지훈", "하은", "도윤", "서준", "지민", "수빈", "예준", "지우", "현우"]
EL_FIRST = ["Γιώργος", "Μαρία", "Νίκος", "Ελένη", "Κώστας", "Δήμητρα", "Γιάννης", "Σοφία"]
EL_LAST = ["Παπαδόπουλος", "Νικολάου", "Γεωργίου", "Δημητρίου", "Οικονόμου", "Καραγιάννης",
           "Βασιλείου", "Αθανασίου"]

# ---- technical vocabulary ---------------------------------------------------------------------

NAME_HEADS = ["Roll", "Flash", "Spec", "Deep", "Fast", "Sparse", "Quant", "Hydra", "Pipe", "Shard", "Stream", "Tree", "Graph", "Hyper", "Meta", "Turbo", "Lite", "Mega", "Omni", "Zero", "Neuro", "Token", "Cache", "Fuse", "Route", "Mix", "Dyna", "Ada", "Lo", "Ro", "Mo", "Pa", "Tri", "Bi", "Uni", "Poly", "Proto", "Echo", "Nova", "Astra", "Orca", "Lynx", "Vela", "Kite", "Mosaic", "Prism", "Tide", "Ember", "Atlas", "Helix", "Flux", "Pulse", "Sage", "Quill", "Raft", "Relay", "Sift", "Splice", "Swift", "Tensor", "Warp", "Zephyr"]
NAME_TAILS = ["Mux", "KV", "Net", "Former", "Serve", "Flow", "RL", "Gen", "MoE", "Attn", "Opt", "Train", "Bench", "Pack", "LM", "Diff", "Sched", "Tune", "Fuse", "Quant", "Scope", "Map", "Grad", "Prune", "Edit", "Sync", "Pipe", "Shard", "Infer", "Cache", "Mem", "Dist", "Spec", "Loop", "Lens", "Bridge", "Guard", "Forge", "Mind", "Core", "Stack"]
NAME_SUFFIXES = ["", "", "", "", "", "", "2", "-PD", "++", "-X", "v2", "-L", "3D", "-R1"]

T_LEAD = ["Towards", "Rethinking", "Scaling", "Accelerating", "Learning", "Revisiting", "Understanding", "Taming", "Unifying", "Benchmarking", "Characterizing", "Exploiting", "Democratizing", "Distilling", "Compressing", "Serving", "Training", "Optimizing", "Harnessing", "Bridging"]
T_ADJ = ["Efficient", "Scalable", "Robust", "Adaptive", "Sparse", "Dense", "Distributed", "Federated", "Hierarchical", "Low-Rank", "Long-Context", "Multimodal", "Self-Supervised", "Contrastive", "Causal", "Differentiable", "Probabilistic", "Bayesian", "Asynchronous", "Elastic", "Heterogeneous", "Memory-Efficient", "Communication-Efficient", "Fine-Grained", "Coarse-Grained", "Zero-Shot", "Few-Shot", "Continual", "Incremental", "Lightweight", "Quantized", "Private", "Secure", "Verifiable", "Interpretable", "Equivariant", "Generative", "Agentic", "Hybrid", "Speculative", "Parallel", "Streaming", "Stochastic", "Convex", "Non-Convex", "Online", "Offline", "Multi-Agent", "Cross-Lingual", "Retrieval-Augmented", "Instruction-Tuned", "Vision-Language", "Diffusion-Based", "Graph-Based", "Physics-Informed", "Noise-Robust", "Energy-Aware", "Latency-Aware", "Fault-Tolerant", "Decentralized", "Structured", "Unsupervised"]
T_NOUN = ["Attention", "Transformers", "Inference", "Training", "Retrieval", "Reasoning", "Alignment", "Distillation", "Quantization", "Pruning", "Scheduling", "Serving", "Decoding", "Pretraining", "Fine-Tuning", "Embeddings", "Representations", "Optimization", "Generalization", "Compression", "Caching", "Routing", "Sampling", "Planning", "Exploration", "Segmentation", "Detection", "Tracking", "Reconstruction", "Synthesis", "Translation", "Summarization", "Recommendation", "Ranking", "Search", "Clustering", "Forecasting", "Control", "Navigation", "Manipulation", "Perception", "Verification", "Testing", "Debugging", "Auditing", "Agents", "Models", "Networks", "Graphs", "Kernels", "Accelerators", "Clusters", "Pipelines", "Workloads", "Experts", "Adapters", "Tokens", "Prompts", "Rewards", "Policies", "Gradients", "Checkpoints", "Datasets", "Benchmarks", "Systems", "Language", "Vision", "Speech", "Video", "Images", "Code", "Proteins", "Molecules", "Qubits", "Circuits", "Signals", "Spikes"]
T_CONNECT = ["for", "for", "for", "with", "via", "via", "in", "under", "over", "and", "across",
             "through", "beyond", "without", "at", "on", "from"]

TASKS = {
    "ml": ["large-scale model training", "mixture-of-experts inference", ("long-context language "
           "modeling"), "reinforcement learning from human feedback", "distributed optimization",
           "neural architecture search", "continual learning", "federated learning",
           "gradient compression", "low-precision training", "parameter-efficient fine-tuning",
           "online convex optimization", "Bayesian inference at scale", ("graph representation "
           "learning"), "time-series forecasting", "offline reinforcement learning",
           "LLM serving", "speculative decoding", "KV cache management", "agentic RL rollouts"],
    "nlp": ["open-domain question answering", "machine translation", "abstractive summarization",
            "instruction following", "mathematical reasoning", "code generation",
            "dense passage retrieval", "retrieval-augmented generation", "dialogue modeling",
            "multilingual understanding", "tool use by language agents", "fact verification",
            "document ranking", "query rewriting", "hallucination detection"],
    "cv": ["video generation", "image segmentation", "3D scene reconstruction",
           "object detection", "visual question answering", "novel view synthesis",
           "image editing", "pose estimation", "robotic grasping", "visual navigation",
           "text-to-image diffusion", "multi-object tracking", "depth estimation"],
    "other": ["adversarial robustness", "malware detection", "program repair",
              "fuzz testing", "speech enhancement", "neural decoding of spike trains",
              "quantum circuit compilation", "side-channel analysis", ("software vulnerability "
              "detection"), "radar signal classification", "variational quantum algorithms",
              "cortical activity modeling"],
}
SUBJECT_GROUP = {"cs.LG": "ml", "cs.DC": "ml", "stat.ML": "ml", "math.OC": "ml", "cs.NE": "ml",
                 "cs.CL": "nlp", "cs.IR": "nlp", "cs.AI": "nlp", "cs.CV": "cv", "cs.RO": "cv",
                 "eess.SP": "other", "q-bio.NC": "other", "quant-ph": "other", "cs.CR": "other",
                 "cs.SE": "other"}
WORDS = {
    "field": ["machine learning systems", "natural language processing", "computer vision",
              "deep learning", "information retrieval", "robot learning", "statistical learning",
              "high-performance computing", "software engineering", "computer security"],
    "obj": ["the KV cache", "expert placement", "gradient synchronization", ("the attention "
            "kernel"), "activation memory", "the rollout buffer", "token routing", ("the draft "
            "model"), "pipeline bubbles", "the reward model", "optimizer state", ("the "
            "embedding table"), "the retrieval index", "the prefill stage", "the decode stage",
            "cross-node communication", "the data loader", "the feature map", ("the loss "
            "landscape"), "the search space", "the replay buffer", "weight updates",
            "the sparse branch", "the global summary", "the teacher signal", ("positional "
            "encodings"), "the critic", "the scheduler", "checkpoint I/O", "the tokenizer"],
    "objs": ["attention heads", "experts", "workers", "GPUs", "layers", "tokens", "trajectories",
             "micro-batches", "shards", "queries", "documents", "frames", "agents", "clients",
             "replicas", "kernels", "prompts", "samples"],
    "adj": ["efficient", "scalable", "lightweight", "principled", "modular", "hardware-aware",
            "communication-efficient", "memory-efficient", "fault-tolerant", "adaptive",
            "training-free", "plug-and-play", "theoretically grounded", "simple yet effective",
            "fine-grained", "hierarchical", "asynchronous", "unified", "robust", "general"],
    "mech": ["a hierarchical scheduler", "a low-rank adapter", "a learned router", ("a two-level "
             "cache"), "a cost model", "a lightweight predictor", "a contrastive objective",
             "a dynamic programming planner", "a gating network", "a mixed-precision kernel",
             "a sparse attention mask", "a memory pool", "a priority queue", ("a reward "
             "shaping term"), "a curriculum", "a verifier", "an asynchronous pipeline",
             "a graph partitioner", "a compression codec", "a calibration step"],
    "challenge": ["quadratic memory growth", "load imbalance across workers", "stragglers",
                  "redundant recomputation", "high tail latency", "distribution shift",
                  "catastrophic forgetting", "noisy supervision", "limited labeled data",
                  "communication overhead", "poor hardware utilization", "reward hacking",
                  "exposure bias", "long-tail inputs", "privacy leakage", ("unstable training "
                  "dynamics"), "irregular sparsity", "fragmented memory", "cold starts",
                  "error accumulation"],
    "verb": ["reduces", "eliminates", "amortizes", "hides", "bounds", "balances", "overlaps",
             "compresses", "prunes", "caches", "reuses", "predicts", "schedules", "shares"],
    "gerund": ["reordering", "batching", "partitioning", "fusing", "overlapping", "quantizing",
               "pruning", "caching", "prefetching", "distilling", "replicating", "sampling",
               "co-locating", "decoupling", "interleaving"],
    "metric": ["throughput", "end-to-end latency", "accuracy", "perplexity", ("memory "
               "footprint"), "time-to-first-token", "training time", "energy consumption",
               "F1 score", "exact match", "BLEU", "mAP", "success rate", "recall@10",
               "goodput", "GPU utilization", "sample efficiency"],
    "base": ["vLLM", "SGLang", "DeepSpeed", "Megatron-LM", "FSDP", "FlashAttention-2", "LoRA",
             "GRPO", "PPO", "DPO", "TensorRT-LLM", "Ray", "PyTorch DDP", "strong baselines",
             "prior state-of-the-art methods", "existing systems", "ResNet-50", "BERT-large",
             "CLIP", "DAPO", "Orca", "ZeRO-3"],
    "data": ["ImageNet", "GSM8K", "MMLU", "LongBench", "COCO", "WikiText-103", "Criteo",
             "MS MARCO", "LibriSpeech", "HumanEval", "SWE-bench", "MATH", "Natural Questions",
             "ScanNet", "Kinetics-400", "OGB", "BEIR", "nuScenes", "CIFAR-100", "ShareGPT traces",
             "production traces"],
    "scale": ["7B", "13B", "14B", "32B", "70B", "235B", "1.3B", "8x7B", "671B"],
    "hw": ["NVIDIA H100 GPUs", "A100 GPUs", "TPU v5e pods", "a 64-GPU cluster", ("commodity "
           "CPUs"), "edge devices", "two 8-GPU nodes", "Ascend NPUs", "a single node"],
    "emph": ["outside", "before", "after", "once", "not", "all", "only", "jointly", "exactly",
             "online", "implicitly"],
    "greek": ["\\alpha", "\\beta", "\\gamma", "\\lambda", "\\tau", "\\epsilon", "\\eta"],
    "bigo": ["O(n^2)", "O(n \\log n)", "O(n)", "O(\\sqrt{T})", "O(1/\\epsilon^2)", "O(k d)",
             "O(L^2 d)", "O(\\log T)"],
    "user": ["gzyyy0", "xzhang9308", "BHmingyang", "ml-sys-lab", "nlp-group", "vision-ai",
             "open-research", "hpc-lab", "deepsys", "ai-infra", "rl-team", "alice-dev",
             "bobchen", "lab-edu", "quantum-lab", "secure-ml"],
}

# Sentence templates.  {SYS} is the paper's system name, {task} its task (fixed per abstract);
# any other field is drawn afresh each time it appears.  Capitalised fields start a sentence.
S_CONTEXT = [
    ("{Task} has become a central workload in {field}, yet existing approaches struggle with "
    "{challenge}."),
    "{Task} is increasingly important for {field}, but its cost is dominated by {obj}.",
    ("Recent progress in {task} has been driven by ever larger models trained on ever larger "
    "datasets."),
    "As models grow to {scale} parameters, {task} is limited less by compute than by {obj}.",
    ("In {task}, practitioners routinely trade {metric} for {metric} because {obj} is hard to "
    "optimize."),
    ("{Task} underpins many applications in {field}, from search to assistants to scientific "
    "discovery."),
    "Modern {task} pipelines combine many {objs}, which makes {challenge} a first-order concern.",
]
S_GAP = [
    ("Existing systems treat {obj} as an atomic unit, which fixes the optimization boundary too "
    "early and leaves {challenge} unaddressed."),
    ("Prior work either ignores {challenge} or mitigates it with {mech} that does not scale "
    "beyond a few {objs}."),
    ("However, we observe that {obj} exhibits {challenge} in practice, and that current "
    "designs {verb} it only partially."),
    ("These compromises can be effective, but they approximate {obj} and introduce extra "
    "hyperparameters."),
    ("Unfortunately, naive solutions suffer from {challenge} and degrade {metric} on "
    "realistic workloads."),
    "A careful measurement study reveals that up to {pct} of the time is spent on {obj}.",
]
S_PROPOSAL = [
    "We present {SYS}, {a_adj} framework for {task} that {verb} {obj} by {gerund} {objs}.",
    "In this work, we propose {SYS}, which {verb} {obj} through {mech}.",
    ("To address these issues, we introduce {SYS}, {a_adj} system that rethinks {obj} for "
    "{task}."),
    "This paper presents {SYS}, {a_adj} approach that combines {mech} with {mech}.",
    "We propose {SYS}, {a_adj} method that decouples {obj} from {obj}.",
]
S_METHOD = [
    "{SYS} incorporates {mech}, {mech}, and {mech} that together {verb} {obj}.",
    "The key idea is to {verb2} {obj} across {objs} rather than within each of them.",
    ("Specifically, {SYS} uses {mech} to decide when to {verb2} {obj}, and {mech} to hide the "
    "remaining overhead."),
    "We formulate the placement of {objs} as an optimization problem and solve it with {mech}.",
    "Our design retains the shared {objs} while coordinating {obj} across {objs}.",
    "To keep the overhead low, {SYS} profiles {objs} offline and adapts online with {mech}.",
    ("We further show that {gerund} {objs} is safe when {obj} is bounded, and exploit this "
    "property to {verb2} {obj}."),
    "Building upon this observation, {SYS} assigns {objs} to {objs} with {mech}.",
    ("Our analysis reveals a clear pattern: {objs} are predominantly shaped by {obj}, while "
    "{objs} draw more information from {obj}."),
    "The resulting algorithm is {adj} and requires no changes to {obj}.",
    "We implement {SYS} on top of {base} in about {kloc} thousand lines of code.",
]
S_RESULT = [
    "Experiments on {data} show that {SYS} improves {metric} by {pct} over {base}.",
    ("Across {int} workloads, {SYS} reduces {metric} by {pct} relative to {base} and by {pct} "
    "relative to {base}."),
    "On {hw}, {SYS} achieves up to {x}x higher {metric} than {base} without loss of {metric}.",
    "Evaluations with {scale} models on {hw} demonstrate a {pct} reduction in {metric}.",
    "{SYS} matches the {metric} of {base} while using {pct} less memory.",
    "In an ablation, {gerund} {objs} alone accounts for {pct} of the gains.",
    ("The results demonstrate that our simple combination consistently improves {metric}, "
    "surpassing {base} and {base}."),
    "On {data}, {SYS} reaches {f2} {metric}, compared with {f2} for {base}.",
]
S_CONCLUSION = [
    "These findings provide a reliable roadmap for practitioners working on {task}.",
    "We hope {SYS} serves as a foundation for future work on {task}.",
    "Our results suggest that {obj} deserves first-class treatment in {field}.",
    "Finally, we discuss limitations and directions for extending {SYS} to {task}.",
]
S_LATEX = [
    (r"Experiments show that {SYS} remains competitive at {pint}\% sparsity while achieving "
    r"${x}\times$ end-to-end speedup on {hw}."),
    r"This reduces the cost of {obj} from ${bigo1}$ to ${bigo2}$ without approximation.",
    (r"The design applies the transformation \emph{{{emph}}} the nonlinear feature map and "
    r"reuses {obj}."),
    (r"With a temperature ${greek}$ controlling the trade-off between {metric} and {metric}, "
    r"{SYS} improves {metric} by {pint}\%."),
    r"We prove an ${bigo1}$ bound on the regret of {obj} under mild assumptions.",
    (r"On {data}, {SYS} delivers a ${x}\times$ reduction in {metric} at ${res}\times{res}$ "
    r"resolution."),
    (r"Crucially, {obj} is computed \emph{{once}} per step, so the overhead grows as "
    r"${bigo1}$ rather than ${bigo2}$."),
    (r"Setting ${greek} = 0.{d}$ recovers {base} as a special case, while larger values favor "
    r"{metric}."),
]
S_LATEX_PROPOSAL = r"We propose \textbf{{{SYS}}}, {a_adj} approach to {task} that {verb} {obj}."
S_URL = ["Code is available at {url}.", "Our code and models are released at {url}.",
         "The implementation is open-sourced at {url}", "Source code: {url}."]
VERB2 = {"reduces": "reduce", "eliminates": "eliminate", "amortizes": "amortize",
         "hides": "hide", "bounds": "bound", "balances": "balance", "overlaps": "overlap",
         "compresses": "compress", "prunes": "prune", "caches": "cache", "reuses": "reuse",
         "predicts": "predict", "schedules": "schedule", "shares": "share"}

# ---- text helpers -----------------------------------------------------------------------------

_LATEX_CMD = re.compile(r"\\([A-Za-z]+|[%&_#$,;])")
_NON_WORD = re.compile(r"[\W_]+")


def plain_text(text: str) -> str:
    """Abstract text without LaTeX markup (close to site_gen.text.plain_text)."""
    text = re.sub(r"(?<!\\)\$+", "", text)
    text = _LATEX_CMD.sub(lambda m: "%" if m.group(1) == "%" else "", text)
    return " ".join(re.sub(r"(?<!\\)[{}]", "", text).split())


def fold(text: str) -> str:
    """Matching key: no accents, case, punctuation; single spaces (like site_gen.text.fold)."""
    bare = text if text.isascii() else "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return _NON_WORD.sub(" ", bare.casefold()).strip()


def derive_title(abstract: str, max_words: int = 12) -> str:
    """Stand-in title for an untitled paper: its first sentence's first words."""
    first = re.split(r"(?<=[.!?])\s", plain_text(abstract).strip(), maxsplit=1)[0]
    words = first.rstrip(".!?").split()
    return " ".join(words[:max_words]) + ("…" if len(words) > max_words else "")


def ascii_slug(text: str, max_length: int = 80) -> str:
    bare = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", bare.lower()).strip("-")
    if len(slug) > max_length:
        slug = slug[:max_length].rsplit("-", 1)[0]
    return slug or "paper"


def toml_str(value: str) -> str:
    """A TOML basic string (JSON string escapes are a subset of TOML's)."""
    return json.dumps(value, ensure_ascii=False)


class Filler(dict):
    """format_map() mapping: fixed fields are dict items, the rest are drawn on each lookup."""

    def __init__(self, rng: Rng) -> None:
        super().__init__()
        self.rng = rng

    def __missing__(self, key: str) -> str:
        r = self.rng
        if key in WORDS:
            return r.choice(WORDS[key])
        if key[0].isupper():
            value = self[key.lower()]
            return value[0].upper() + value[1:]
        if key == "pct":
            return f"{r.uniform(3, 65):.1f}%"
        if key == "pint":
            return str(r.choice((50, 60, 75, 80, 90, 95, 99)))
        if key == "x":
            return f"{r.uniform(1.1, 9.9):.2f}"
        if key == "f2":
            return f"{r.uniform(20, 95):.1f}"
        if key == "int":
            return str(r.randint(3, 40))
        if key == "kloc":
            return str(r.randint(2, 30))
        if key == "d":
            return str(r.randint(1, 9))
        if key == "res":
            return str(r.choice((256, 512, 720, 1024, 1280)))
        if key == "a_adj":
            adj = r.choice(WORDS["adj"])
            vowel = adj[0] in "aeio" or (adj[0] == "u" and not adj.startswith(("uni", "use")))
            return ("an " if vowel else "a ") + adj
        if key == "verb2":
            return VERB2[r.choice(WORDS["verb"])]
        if key == "bigo1":
            self.bigo = r.choice(WORDS["bigo"])
            return self.bigo
        if key == "bigo2":  # follows bigo1 in every template: never "from O(n) to O(n)"
            return r.choice([b for b in WORDS["bigo"] if b != getattr(self, "bigo", None)])
        raise KeyError(key)


class Rng(random.Random):
    """random.Random (same Mersenne Twister, same seeding) with cheaper choice/randint/randrange:
    they scale random() instead of rejection-sampling bits, which is fast and, for the small
    ranges used here, unbiased enough."""

    def choice(self, seq):  # type: ignore[override]
        return seq[int(self.random() * len(seq))]

    def randint(self, a: int, b: int) -> int:  # type: ignore[override]
        return a + int(self.random() * (b - a + 1))

    def randrange(self, n: int) -> int:  # type: ignore[override]  # only randrange(n) is used
        return int(self.random() * n)

    def weighted(self, population, cum_weights):
        return population[bisect.bisect_right(cum_weights, self.random() * cum_weights[-1])]


def cum(weights: list[float]) -> list[float]:
    return list(itertools.accumulate(weights))


YEAR_CUM, SUBJECT_CUM = cum(YEAR_WEIGHTS), cum(SUBJECT_WEIGHTS)
SUBJECT_COUNT_CUM, AUTHOR_COUNT_CUM = cum(SUBJECT_COUNT_WEIGHTS), cum(AUTHOR_COUNT_WEIGHTS)
SECTIONS, SECTION_CUM = (1, 3, 4), cum([1, 4, 3])


# ---- the model --------------------------------------------------------------------------------

class Corpus:
    """All papers and their dump placement; built in memory, then written file by file."""

    def __init__(self, n: int, seed: int, shape: str = SHAPES[0]) -> None:
        self.n, self.seed, self.many = n, seed, shape == "many-authors"
        self.rng = Rng(seed)
        self.n_authors = max(12, n * 9 // 4 if self.many else n // 5)
        self.shown = 100 if self.many else 3  # names a co-author entry shows
        self.n_profiled = max(2, n // 50)
        self.names: list[str] = []
        self.titles: list[str] = []
        self.years: list[int] = []
        self.subjects: list[tuple[str, ...]] = []
        self.authors: list[list[int]] = []
        self.abstracts: list[str] = []
        self._title_keys: set[str] = set()
        self._opening_keys: set[str] = set()

    # -- names --

    def make_names(self) -> None:
        r = self.rng
        first, last = LATIN_FIRST.split(), LATIN_LAST.split()
        used: set[str] = set()
        kinds = ["latin", "accent", "zh", "ru", "ja", "ko", "el"]
        kind_cum = cum([85, 9, 2.2, 1.6, 0.8, 0.8, 0.6])
        self.name_kinds: list[str] = []
        for _ in range(self.n_authors):
            kind = r.weighted(kinds, kind_cum)
            for attempt in itertools.count():
                name = self._one_name(kind, first, last, attempt)
                key = fold(name)  # "Zoë Müller" and "Zoe Muller" would be one person to site-gen
                if key not in used:
                    break
            used.add(key)
            self.names.append(name)
            self.name_kinds.append(kind)

    def _one_name(self, kind: str, first: list[str], last: list[str], attempt: int) -> str:
        r = self.rng
        if kind == "accent":
            f = r.choice(ACCENT_FIRST + first[:40]) if r.random() < 0.5 else r.choice(ACCENT_FIRST)
            name = f"{f} {r.choice(ACCENT_LAST)}"
        elif kind == "zh":
            name = r.choice(ZH_SURNAME) + r.choice(ZH_GIVEN)
            if attempt > 3:
                name += r.choice(ZH_GIVEN)
        elif kind == "ru":
            if r.random() < 0.7:
                name = f"{r.choice(RU_MALE)} {r.choice(RU_LAST)}"
            else:
                name = f"{r.choice(RU_FEMALE)} {r.choice(RU_LAST)}а"
        elif kind == "ja":
            name = r.choice(JA_SURNAME) + r.choice(JA_GIVEN)
        elif kind == "ko":
            name = r.choice(KO_SURNAME) + r.choice(KO_GIVEN)
        elif kind == "el":
            name = f"{r.choice(EL_FIRST)} {r.choice(EL_LAST)}"
        else:
            f, l = r.choice(first), r.choice(last)
            roll = r.random()
            if roll < 0.04:
                l = f"{r.choice(LATIN_PARTICLES)} {l}"
            if roll > 0.9 or attempt > 8:
                name = f"{f} {chr(65 + r.randrange(26))}. {l}"
            else:
                name = f"{f} {l}"
        if attempt > 30:  # small pools of one script run out: fall back to a Latin name
            initials = f"{chr(65 + r.randrange(26))}. {chr(65 + r.randrange(26))}."
            name = f"{r.choice(first)} {initials} {r.choice(last)}"
        return name

    # -- titles --

    def system_name(self) -> str:
        r = self.rng
        if r.random() < 0.25:  # an acronym such as "HARTS" or "PCoMoE"
            letters = "".join(chr(65 + r.randrange(26)) for _ in range(r.randint(3, 5)))
            if r.random() < 0.3:
                letters += r.choice(["o", "e", "a"]) + r.choice(NAME_TAILS)
            return letters + r.choice(NAME_SUFFIXES)
        return r.choice(NAME_HEADS) + r.choice(NAME_TAILS) + r.choice(NAME_SUFFIXES)

    def _noun_phrase(self, k: int) -> list[str]:
        r = self.rng
        if k == 1:
            return [r.choice(T_NOUN)]
        if k == 2:
            return [r.choice(T_ADJ) if r.random() < 0.7 else r.choice(T_NOUN), r.choice(T_NOUN)]
        return [r.choice(T_ADJ), r.choice(T_ADJ if r.random() < 0.3 else T_NOUN), r.choice(T_NOUN)]

    def make_title(self) -> tuple[str, str | None]:
        r = self.rng
        while True:
            target = r.randint(5, 14)
            sys_name = self.system_name() if r.random() < 0.6 else None
            words: list[str] = []
            budget = target - (1 if sys_name else 0)
            if r.random() < 0.3 and budget > 3:
                words.append(r.choice(T_LEAD))
            while True:
                remaining = budget - len(words)
                if remaining <= 3:
                    words += self._noun_phrase(remaining)
                    break
                words += self._noun_phrase(r.randint(1, min(3, remaining - 2)))
                words.append(r.choice(T_CONNECT))
            body = " ".join(words)
            title = f"{sys_name}: {body}" if sys_name else body
            key = fold(title)
            if key not in self._title_keys:
                self._title_keys.add(key)
                return title, sys_name

    # -- abstracts --

    def make_abstract(self, subjects: tuple[str, ...], sys_name: str | None) -> str:
        r = self.rng
        fill = Filler(r)
        fill["task"] = r.choice(TASKS[SUBJECT_GROUP[subjects[0]]])
        named = sys_name or (self.system_name() if r.random() < 0.5 else None)
        fill["SYS"] = named or "our approach"
        latex = r.random() < P_LATEX
        url = ""
        if r.random() < P_CODE_URL:
            repo = (named or r.choice(NAME_HEADS) + r.choice(NAME_TAILS)).replace("+", "p")
            url = r.choice(S_URL).format(
                url=f"https://github.com/{r.choice(WORDS['user'])}/{repo}")
        hi = ABSTRACT_MAX - (len(url) + 1 if url else 0)

        used: set[str] = set()

        def say(templates: list[str] | str) -> str:
            if isinstance(templates, str):
                tpl = templates
            else:  # avoid repeating a template within one abstract (a few tries)
                for _ in range(4):
                    tpl = r.choice(templates)
                    if tpl not in used:
                        break
                used.add(tpl)
            text = tpl.format_map(fill)
            return text[0].upper() + text[1:]

        # The first two sentences are drawn until their first 25 folded words are new: that makes
        # every abstract unique for site-gen's merge key and its suspected-duplicate check.
        for _ in range(100):
            opening = [say(S_CONTEXT), say(S_GAP)]
            words = " ".join(opening).lower()
            key = " ".join(_NON_WORD.sub(" ", words).split()[:OPENING_WORDS])
            if key not in self._opening_keys:
                self._opening_keys.add(key)
                break
        else:
            raise RuntimeError("could not draw a new abstract opening")
        while True:
            target = r.randint(ABSTRACT_MIN, hi - 150)
            # Sections in order: opening, more gap, proposal, method, results, conclusion.
            parts: list[list[str]] = [opening, [], [], [], [], []]
            if latex and named and r.random() < 0.5:
                parts[2].append(say(S_LATEX_PROPOSAL))
            else:
                parts[2].append(say(S_PROPOSAL))
            parts[4].append(say(S_RESULT))
            if latex:
                for _ in range(r.randint(1, 3)):
                    parts[r.choice((3, 4))].append(say(S_LATEX))
            if r.random() < 0.4:
                parts[5].append(say(S_CONCLUSION))
            total = sum(len(s) + 1 for p in parts for s in p) - 1
            if total > hi:  # rare: the fixed sentences alone are too long; draw them again
                continue
            misses = 0
            while total < target and misses < 6:
                section = r.weighted(SECTIONS, SECTION_CUM)
                sentence = say(S_GAP if section == 1 else S_METHOD if section == 3 else S_RESULT)
                if total + 1 + len(sentence) > hi:
                    misses += 1
                    continue
                parts[section].insert(r.randint(0, len(parts[section])), sentence)
                total += 1 + len(sentence)
            if total >= ABSTRACT_MIN - (len(url) + 1 if url else 0):
                break
        sentences = [s for p in parts for s in p]
        if url:
            sentences.append(url)
        text = " ".join(sentences)
        assert ABSTRACT_MIN <= len(text) <= ABSTRACT_MAX, len(text)
        return text

    # -- papers --

    def make_papers(self) -> None:
        r = self.rng
        weights = [1.0 / (i + 1) ** ZIPF_S for i in range(self.n_authors)]
        author_cum = cum(weights)
        top = author_cum[-1]
        self.counts = [0] * self.n_authors
        for _ in range(self.n):
            year = r.weighted(YEARS, YEAR_CUM)
            k_subj = r.weighted(SUBJECT_COUNTS, SUBJECT_COUNT_CUM)
            subjects: list[str] = []
            while len(subjects) < k_subj:
                s = r.weighted(SUBJECTS, SUBJECT_CUM)
                if s not in subjects:
                    subjects.append(s)
            k_auth = self.author_count()
            authors: list[int] = []
            while len(authors) < k_auth:
                a = bisect.bisect_right(author_cum, r.random() * top)
                a = min(a, self.n_authors - 1)
                if a not in authors:
                    authors.append(a)
            r.shuffle(authors)  # popular authors are not always first
            for a in authors:
                self.counts[a] += 1
            title, sys_name = self.make_title()
            self.years.append(year)
            self.subjects.append(tuple(subjects))
            self.authors.append(authors)
            self.titles.append(title)
            self.abstracts.append(self.make_abstract(tuple(subjects), sys_name))

    def author_count(self) -> int:
        """How many authors the next paper has, by the corpus' shape."""
        r = self.rng
        if not self.many:
            return r.weighted(AUTHOR_COUNTS, AUTHOR_COUNT_CUM)
        if r.random() < P_HUGE_LIST:
            return min(r.randint(*HUGE_LIST), self.n_authors)
        return min(r.choice(MANY_AUTHORS), self.n_authors)

    def choose_profiled(self) -> None:
        r = self.rng
        order = sorted(range(self.n_authors), key=lambda a: (-self.counts[a], a))
        self.profiled = order[: self.n_profiled]
        # Make sure the profiled set exercises accented and non-Latin names.
        for want, slot in (("accent", -1), ("zh", -2), ("ru", -3)):
            if len(self.profiled) + slot < 0:
                continue
            if not any(self.name_kinds[a] == want for a in self.profiled):
                donor = next(i for i, a in enumerate(self.name_kinds) if a == want) \
                    if want in self.name_kinds else None
                if donor is not None:
                    a = self.profiled[slot]
                    self.names[a], self.names[donor] = self.names[donor], self.names[a]
                    self.name_kinds[a], self.name_kinds[donor] = (
                        self.name_kinds[donor], self.name_kinds[a])
        self.rank = {a: i for i, a in enumerate(self.profiled)}
        # Every paper needs a profiled author: add one (Zipf-weighted) where none is present.
        pweights = list(itertools.accumulate(1.0 / (i + 1) ** ZIPF_S
                                             for i in range(len(self.profiled))))
        self.added_authors = 0
        for pid, authors in enumerate(self.authors):
            if any(a in self.rank for a in authors):
                continue
            x = self.profiled[bisect.bisect_right(pweights, r.random() * pweights[-1])]
            if len(authors) >= (HUGE_LIST[1] if self.many else AUTHOR_COUNTS[-1]):
                authors[r.randrange(len(authors))] = x
            else:
                authors.insert(r.randint(0, len(authors)), x)
            self.added_authors += 1
        self.papers_of: dict[int, list[int]] = {a: [] for a in self.profiled}
        for pid, authors in enumerate(self.authors):
            for a in authors:
                if a in self.rank:
                    self.papers_of[a].append(pid)

    def place(self) -> None:
        """Choose co-author dump owners, unlisted papers and co-author dump entries."""
        r = self.rng
        owners = [a for a in self.profiled if r.random() < P_COAUTHOR_DUMP]
        if not owners:
            owners = [self.profiled[0]]
        self.listed = [True] * self.n
        listing_size = {a: len(self.papers_of[a]) for a in self.profiled}
        plan: dict[int, tuple[int, int]] = {}
        self.coauthor_entries: dict[int, list[int]] = {}
        # Phase 1: papers that only a co-author dump will show (no listing dump has them).
        for a in owners:
            papers = self.papers_of[a]
            size = max(2, round(len(papers) * r.uniform(0.15, 0.5)))
            unlisted = sum(r.random() < P_UNLISTED for _ in range(size))
            chosen: list[int] = []
            for pid in r.sample(papers, len(papers)):
                if len(chosen) >= unlisted:
                    break
                if not self.listed[pid]:
                    continue
                holders = [b for b in self.authors[pid] if b in self.rank]
                if all(listing_size[b] > 1 for b in holders):
                    self.listed[pid] = False
                    for b in holders:
                        listing_size[b] -= 1
                    chosen.append(pid)
            plan[a] = (size, len(chosen))
            self.coauthor_entries[a] = chosen
        # Phase 2: papers a co-author dump repeats from the listings, with small text changes.
        for a in owners:
            size, unlisted = plan[a]
            candidates = [pid for pid in self.papers_of[a] if self.listed[pid]]
            k = max(1, min(len(candidates), size - unlisted))
            entries = self.coauthor_entries[a] + r.sample(candidates, k)
            r.shuffle(entries)
            self.coauthor_entries[a] = entries
        self.coauthor_owners = owners

    # -- perturbation --

    def perturb(self, text: str) -> str:
        r = self.rng
        op = r.randrange(3)
        if op == 0:  # change the case of one letter of a plain word
            for _ in range(30):
                i = r.randrange(len(text))
                if not ("a" <= text[i].lower() <= "z"):
                    continue
                start = text.rfind(" ", 0, i) + 1
                end = text.find(" ", i)
                word = text[start: end if end >= 0 else len(text)]
                if any(c in word for c in "\\$/{}"):
                    continue
                return text[:i] + text[i].swapcase() + text[i + 1:]
            op = 1
        if op == 1:  # double a space
            i = text.find(" ", r.randrange(len(text)))
            if i < 0:
                i = text.find(" ")
            return text[:i] + " " + text[i:]
        # punctuation at a sentence end
        if not text.endswith("."):
            return text + "."
        inner = [m.start() for m in re.finditer(r"\. (?=[A-Z])", text)]
        if inner and r.random() < 0.5:
            i = r.choice(inner)
            return text[:i] + r.choice((";", ",", "!")) + text[i + 1:]
        return text[:-1]


# ---- writing ----------------------------------------------------------------------------------

class Writer:
    def __init__(self, out: str) -> None:
        self.out = out
        self.bytes = {"dumps": 0, "hugo": 0, "other": 0}
        self.files = 0

    def write(self, rel: str, text: str, bucket: str) -> None:
        path = os.path.join(self.out, rel)
        data = text.encode("utf-8")
        with open(path, "wb") as fh:
            fh.write(data)
        self.bytes[bucket] += len(data)
        self.files += 1


def dump_names(corpus: Corpus) -> dict[tuple[str, int], str]:
    """File names: 00[0-2]_<hex>.txt for listings, 003_<hex>.txt for co-author dumps."""
    r = corpus.rng
    names: dict[tuple[str, int], str] = {}
    used: set[str] = set()
    for kind, authors in (("listing", corpus.profiled), ("coauthor", corpus.coauthor_owners)):
        for a in authors:
            digest = hashlib.sha1(corpus.names[a].encode("utf-8")).hexdigest()
            prefix = f"00{r.randrange(3)}" if kind == "listing" else "003"
            width = 8
            while f"{prefix}_{digest[:width]}.txt" in used:  # 8 hex digits may collide
                width += 2
            name = f"{prefix}_{digest[:width]}.txt"
            used.add(name)
            names[(kind, a)] = name
    return names


def write_content(c: Corpus, w: Writer) -> dict[str, int]:
    r = c.rng
    os.makedirs(os.path.join(w.out, "content", "dumps"), exist_ok=True)
    w.write("content/site.yaml",
            f"title: Synthetic corpus {c.n}\n"
            "site_url: https://example.org/\n"
            f"description: Synthetic benchmark corpus of {c.n} paper{'s' if c.n != 1 else ''} "
            f"(seed {c.seed}) made by benchmarks/gen_corpus.py\n", "other")
    files = dump_names(c)
    stats = {"listing_dumps": 0, "listing_records": 0, "coauthor_dumps": 0,
             "coauthor_records": 0}
    for a in c.profiled:
        name = c.names[a]
        records = sorted((pid for pid in c.papers_of[a] if c.listed[pid]),
                         key=lambda pid: (-c.years[pid], pid))
        n = len(records)
        if r.random() < P_AT_LEAST:
            claim = max(1, n - r.randint(0, 3))
            count = f"At least {claim} record{'s' if claim != 1 else ''}"
        else:
            count = f"{n} record{'s' if n != 1 else ''}"
        parts = ["arXiv subjects", name, f"Publications and source records attributed to {name}.",
                 f"{count}Linked to original sources"]
        for pid in records:
            parts.append(f"arXiv{c.years[pid]}")
            parts.append(c.titles[pid])
            parts.append(c.abstracts[pid])
            parts.extend(f"{s}↗" for s in c.subjects[pid])
        w.write(f"content/dumps/{files[('listing', a)]}", "\n\n".join(parts), "dumps")
        stats["listing_dumps"] += 1
        stats["listing_records"] += n
    c.shown_authors: dict[int, set[int]] = {}
    c.coauthor_text: dict[int, str] = {}
    for a in c.coauthor_owners:
        parts = [c.names[a]]
        for pid in c.coauthor_entries[a]:
            authors = c.authors[pid]
            shown = authors[:c.shown]
            c.shown_authors.setdefault(pid, set()).update(shown + [a])
            line = ", ".join(c.names[b] for b in shown)
            parts.append(line + (" et al." if len(authors) > c.shown else ""))
            text = c.abstracts[pid]
            if r.random() < P_PERTURB:
                text = c.perturb(text)
                if r.random() < 0.2:
                    text = c.perturb(text)
            parts.append(text)
        w.write(f"content/dumps/{files[('coauthor', a)]}", "\n\n".join(parts), "dumps")
        stats["coauthor_dumps"] += 1
        stats["coauthor_records"] += len(c.coauthor_entries[a])
    return stats


HUGO_TOML = """\
baseURL = "https://example.org/"
title = {title}
languageCode = "en"
# Fair comparison with site-gen: no feeds, no sitemap, no robots.txt, no 404 page.
disableKinds = ["RSS", "sitemap", "robotsTXT", "404"]
buildFuture = true
enableRobotsTXT = false

[params]
description = {description}

[taxonomies]
author = "authors"
subject = "subjects"
"""

LAYOUTS = {
    "_default/baseof.html": """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ if not .IsHome }}{{ .Title }} | {{ end }}{{ site.Title }}</title>
<meta name="description" content="{{ with .Description }}{{ . }}{{ else }}{{ site.Params.description }}{{ end }}">
</head>
<body>
<header><a href="{{ "/" | relURL }}">{{ site.Title }}</a>
<nav><a href="{{ "/papers/" | relURL }}">Papers</a> <a href="{{ "/authors/" | relURL }}">Authors</a> <a href="{{ "/subjects/" | relURL }}">Subjects</a></nav></header>
<main>
{{ block "main" . }}{{ end }}
</main>
</body>
</html>
""",
    "_default/single.html": """\
{{ define "main" }}
<article class="paper">
<h1>{{ .Title }}</h1>
{{/* .Params + urlize, not .GetTerms: GetTerms walks every term of the taxonomy for each page
     (quadratic in Hugo 0.111) and re-sorts the terms; this keeps the authors' order. */}}
<p class="authors">{{ range $i, $a := .Params.authors }}{{ if $i }}, {{ end }}<a href="{{ printf "/authors/%s/" (urlize $a) | relURL }}">{{ $a }}</a>{{ end }}</p>
<p class="meta">{{ if not .Date.IsZero }}<span class="year">{{ .Date.Year }}</span>{{ end }}
{{ range .Params.subjects }}<a class="subject" href="{{ printf "/subjects/%s/" (urlize .) | relURL }}">{{ . }}</a> {{ end }}</p>
<div class="abstract">{{ .Content }}</div>
</article>
{{ end }}
""",
    "_default/list.html": """\
{{ define "main" }}
<h1>{{ .Title }}</h1>
<ul class="papers">
{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ if not .Date.IsZero }} ({{ .Date.Year }}){{ end }}</li>
{{ end }}</ul>
{{ end }}
""",
    "_default/taxonomy.html": """\
{{ define "main" }}
<h1>{{ .Title }}</h1>
<ul class="terms">
{{ range .Data.Terms.ByCount }}<li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> ({{ .Count }})</li>
{{ end }}</ul>
{{ end }}
""",
    "_default/term.html": """\
{{ define "main" }}
<h1>{{ .Title }}</h1>
<p>{{ len .Pages }} papers</p>
<ul class="papers">
{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ if not .Date.IsZero }} ({{ .Date.Year }}){{ end }}</li>
{{ end }}</ul>
{{ end }}
""",
    "index.html": """\
{{ define "main" }}
<h1>{{ site.Title }}</h1>
<p>{{ site.Params.description }}</p>
<h2>Profiled authors</h2>
<ul class="authors">
{{ $profiled := site.Data.profiled }}
{{ range site.Taxonomies.authors.ByCount }}{{ if index $profiled .Page.Title }}<li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> ({{ .Count }})</li>
{{ end }}{{ end }}</ul>
<h2>Subjects</h2>
<ul class="subjects">
{{ range site.Taxonomies.subjects.ByCount }}<li><a href="{{ .Page.RelPermalink }}">{{ .Page.Title }}</a> ({{ .Count }})</li>
{{ end }}</ul>
{{ end }}
""",
}


def write_hugo(c: Corpus, w: Writer, meta: str) -> int:
    for sub in ("content/papers", "layouts/_default", "data"):
        os.makedirs(os.path.join(w.out, "hugo", sub), exist_ok=True)
    w.write("hugo/hugo.toml", HUGO_TOML.format(
        title=toml_str(f"Synthetic corpus {c.n}"),
        description=toml_str(f"Synthetic benchmark corpus of {c.n} paper{'s' if c.n != 1 else ''} "
                             f"(seed {c.seed}) made by benchmarks/gen_corpus.py")), "hugo")
    for rel, text in LAYOUTS.items():
        w.write(f"hugo/layouts/{rel}", text, "hugo")
    profiled = {c.names[a]: i + 1 for i, a in enumerate(c.profiled)}
    w.write("hugo/data/profiled.json",
            json.dumps(profiled, ensure_ascii=False, indent=0, sort_keys=True) + "\n", "hugo")
    w.write("hugo/content/papers/_index.md", '+++\ntitle = "Papers"\n+++\n', "hugo")
    slugs: set[str] = set()
    pages = 0
    for pid in range(c.n):
        listed = c.listed[pid]
        authors = c.authors[pid]
        if meta == "full":
            names = [c.names[a] for a in authors]
            title = c.titles[pid] if listed else derive_title(c.abstracts[pid])
            year, subjects = c.years[pid], c.subjects[pid]
        else:
            # What the dumps tell site-gen: listing owners, plus the names that co-author dumps
            # show; untitled papers (co-author dumps only) have no year and no subjects.
            shown = set(c.shown_authors.get(pid, ()))
            if listed:
                shown.update(a for a in authors if a in c.rank)
            names = [c.names[a] for a in authors if a in shown]
            title = c.titles[pid] if listed else derive_title(c.abstracts[pid])
            year = c.years[pid] if listed else None
            subjects = c.subjects[pid] if listed else ()
        slug = base = ascii_slug(title)
        i = 2
        while slug in slugs:
            slug = f"{base}-{i}"
            i += 1
        slugs.add(slug)
        front = [f"title = {toml_str(title)}"]
        if year is not None:
            front.append(f"date = {year}-01-01")
        front.append("authors = [" + ", ".join(toml_str(n) for n in names) + "]")
        front.append("subjects = [" + ", ".join(toml_str(s) for s in subjects) + "]")
        if not listed:
            front.append("untitled = true")
        w.write(f"hugo/content/papers/{slug}.md",
                "+++\n" + "\n".join(front) + "\n+++\n" + c.abstracts[pid] + "\n", "hugo")
        pages += 1
    return pages


def prepare_out(out: str, force: bool, hugo: bool) -> None:
    if os.path.exists(os.path.join(out, ".git")):
        sys.exit(f"gen_corpus: refusing to write into {out}: it is a git checkout")
    targets = [os.path.join(out, "content", "dumps"), os.path.join(out, "content", "site.yaml")]
    if hugo:
        targets.append(os.path.join(out, "hugo"))
    existing = [t for t in targets if os.path.lexists(t)]
    if not existing:
        return
    if not force:
        sys.exit(f"gen_corpus: {existing[0]} exists; pass --force to replace it "
                 "(removes DIR/content/dumps, DIR/content/site.yaml and DIR/hugo)")
    for t in existing:
        if os.path.isdir(t) and not os.path.islink(t):
            shutil.rmtree(t)
        else:
            os.remove(t)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Write a deterministic synthetic corpus: site-gen "
                                 "dumps and the same papers as a Hugo site.")
    ap.add_argument("n", type=int, metavar="N", help="number of distinct papers")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--out", required=True, metavar="DIR", help="output directory")
    ap.add_argument("--no-hugo", action="store_true", help="do not write DIR/hugo")
    ap.add_argument("--hugo-meta", choices=("visible", "full"), default="visible",
                    help="Hugo pages carry what the dumps show site-gen (visible, default) or "
                    "every paper's true authors, year and subjects (full)")
    ap.add_argument("--shape", choices=SHAPES, default=SHAPES[0],
                    help="five-authors (default: 2-12 authors a paper) or many-authors (10-30, "
                    "some 100-300, a few authors on 500+ papers)")
    ap.add_argument("--force", action="store_true",
                    help="replace an earlier corpus in DIR "
                    "(content/dumps, content/site.yaml, hugo)")
    args = ap.parse_args(argv)
    if args.n < 1:
        ap.error("N must be at least 1")
    started = time.perf_counter()
    prepare_out(args.out, args.force, not args.no_hugo)
    corpus = Corpus(args.n, args.seed, args.shape)
    corpus.make_names()
    corpus.make_papers()
    corpus.choose_profiled()
    corpus.place()
    writer = Writer(args.out)
    stats = write_content(corpus, writer)
    pages = 0 if args.no_hugo else write_hugo(corpus, writer, args.hugo_meta)
    untitled = corpus.listed.count(False)
    elapsed = time.perf_counter() - started
    dumps = stats["listing_dumps"] + stats["coauthor_dumps"]
    print(f"gen_corpus: papers={corpus.n} untitled={untitled} authors={corpus.n_authors} "
          f"profiled={len(corpus.profiled)} dumps={dumps} "
          f"(listing={stats['listing_dumps']} coauthor={stats['coauthor_dumps']}) "
          f"records={stats['listing_records'] + stats['coauthor_records']} "
          f"(listing={stats['listing_records']} coauthor={stats['coauthor_records']}) "
          f"hugo_pages={pages} bytes={sum(writer.bytes.values())} "
          f"(dumps={writer.bytes['dumps']} hugo={writer.bytes['hugo']}) "
          f"seconds={elapsed:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
